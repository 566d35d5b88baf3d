import base64

import pytest

from apps.kit import Invalid
from apps.kit.content import decode, encode


def test_text_and_binary_travel_both_ways():
    assert decode("héllo", None) == "héllo".encode()
    raw = bytes(range(256))
    assert decode(None, base64.b64encode(raw).decode()) == raw
    assert encode("héllo".encode()) == ("text", "héllo")
    kind, text = encode(raw)
    assert kind == "base64" and base64.b64decode(text) == raw
    assert encode(None) == ("text", "")


@pytest.mark.parametrize("text, b64, says", [
    (None, None, "exactly one"), ("a", "YQ==", "exactly one"), (None, "not base64!", "not valid base64")])
def test_bad_content_names_the_field(text, b64, says):
    with pytest.raises(Invalid) as error:
        decode(text, b64, field="attachments.0.content_base64")
    assert says in str(error.value) and error.value.field == "attachments.0.content_base64"
