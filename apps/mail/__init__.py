"""Mail: a Gmail clone. Mailboxes for every person, threads, labels, search, drafts, attachments."""

from pathlib import Path

from apps.kit import App, OperationSet
from apps.mail import composing, filters, models, operations, threads
from apps.mail.seed import seed
from apps.mail.world import MailSection

APP = App(
    name="mail",
    title="Mail",
    operations=OperationSet("mail").include(operations.ops).include(composing.ops).include(threads.ops).include(filters.ops),
    tables=models.TABLES,
    ddl=models.DDL,
    seed=seed,
    source_dir=Path(__file__).parent,
    world=MailSection(),
)
