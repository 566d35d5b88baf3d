"""The episode store: the apps served (``registry``), worlds compiled to images (``compile``), episodes
over them (``episodes``), freed memory given back (``memory``)."""
