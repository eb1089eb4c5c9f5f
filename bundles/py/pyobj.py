# Shared by introspect.py and extract.py (both copy it into /job beside
# themselves): which object holds an API's code.
import inspect


def code_target(obj):
    """The function or class whose source is obj's implementation.

    Decorators are unwrapped, a property gives its getter, and an instance
    (e.g. a scipy.stats distribution object) gives its class.
    """
    target = obj
    try:
        target = inspect.unwrap(obj)
    except Exception:  # noqa: BLE001
        pass
    if isinstance(target, property):
        target = target.fget
    if not (inspect.isroutine(target) or inspect.isclass(target)):
        target = type(target)
    return target
