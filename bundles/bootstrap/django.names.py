# Names django's documentation uses in its examples without making them
# (docs/protocol.md §7 Stage 2, prelude): a view's request, as Django's own
# test tools make one. An example that uses one of these names unbound, and
# whose page, imports and aliases do not give it, gets the statement that
# binds it after its import lines.
from django.test import RequestFactory

request = RequestFactory().get("/")
