# An exception raised by candidate code: exit 1 and a traceback on stderr.
def f():
    raise ValueError("boom from candidate")
f()
