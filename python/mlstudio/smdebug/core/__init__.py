"""``mlstudio.smdebug.core``: where smdebug keeps its modes (``smdebug.core.modes``)."""
