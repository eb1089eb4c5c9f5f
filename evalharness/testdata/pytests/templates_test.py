# Tests of the embedded Python (py/fingerprint.py, py/recording_monitor.py,
# py/call_check.py), run in the sandbox after the recording monitor for
# numpy.unstack (see TestPythonTemplates). CALL_CHECK_OK and CALL_CHECK_BAD
# are defined by the Go test before this file.
import numpy as np
import pandas as pd

# Fingerprints (docs/protocol.md §4.5).
assert _fp(True) == {"t": "bool", "v": True}
assert _fp(3) == {"t": "number", "v": 3}
assert _fp(2 ** 60) == {"t": "number", "v": str(2 ** 60)}
assert _fp(float("nan")) == {"t": "number", "v": "nan"}
assert _fp(np.float32(1.5)) == {"t": "number", "v": 1.5}
assert _fp(np.int8(-3)) == {"t": "number", "v": -3}
assert _fp(None) == {"t": "builtins.NoneType"}
s = _fp("a b")
assert s["t"] == "builtins.str" and s["len"] == 3 and len(s["h"]) == 16
assert _fp_arg("a b") == {"t": "builtins.str"}
assert _fp_arg("gelu") == _fp("gelu")
assert _fp("at 0x7f00") == _fp("at 0x1234"), "addresses are normalised before hashing"
a = _fp(np.array([[1, 2], [3, -4]]))
assert a == {"t": "numpy.ndarray", "shape": [2, 2], "dtype": "int64", "nan": 0, "s": 2.0, "a": 10.0}, a
assert _fp(np.array(["x", "y"]))["h"]
seq = _fp((1, "q"))
assert seq["t"] == "sequence" and seq["len"] == 2 and seq["items"][0] == {"t": "number", "v": 1}
m = _fp({"b": 1, "a": 2})
assert m["t"] == "mapping" and m["len"] == 2 and m["items"] == [{"t": "number", "v": 2}, {"t": "number", "v": 1}]
assert "r" not in _fp(object()), "opaque reprs are not hashed"
assert _fp(len) == {"t": "builtins.builtin_function_or_method"}
ps = _fp(pd.Series([1.0, None, 2.0]))
assert ps["t"] == "pandas.Series" and ps["s"] == 3.0 and ps["a"] == 3.0 and ps["dtype"] == "float64" and ps["shape"] == [3]
df = _fp(pd.DataFrame({"n": [1, 2], "s": ["a", "b"]}))
assert df["shape"] == [2, 2] and df["s"] == 3.0 and "h" in df and "cols" in df and "idx" in df

# Argument canonicalisation.
c = _fp_canon(np.unstack.__wrapped__, (np.zeros(2),), {"axis": 0})
assert c["__explicit__"] == ["x", "axis"] and c["axis"] == {"t": "number", "v": 0}, c
bad = _fp_canon(np.unstack.__wrapped__, (), {"nope": 1})
assert bad == {"*": [], "**": {"nope": {"t": "number", "v": 1}}}, bad

# The monitor: every alias patched, calls counted and recorded.
import numpy
assert _target_api_spy_installed
assert numpy.unstack is np.unstack and np.unstack.__name__ == "_target_api_spy"
del _target_api_calls[:]
_target_api_call_count[0] = 0
_target_api_recording[0] = True
out = np.unstack(np.arange(4.0).reshape(2, 2))
assert _target_api_call_count[0] == 1 and len(_target_api_calls) == 1
rec = _target_api_calls[0]
assert rec["kind"] == "call" and rec["ret"]["t"] == "sequence" and rec["ret"]["len"] == 2, rec
assert rec["args"]["__explicit__"] == ["x"]
try:
    np.unstack(np.float64(1.0))
except ValueError:
    pass
else:
    raise AssertionError("unstack of a scalar must raise")
assert _target_api_calls[-1]["ret"] == {"t": "raised", "exc": "ValueError"}
note = _target_api_raised[-1][1]
assert note["exc"] == "ValueError" and note["depth"] >= 1 and note["bind"] is True, note
try:
    np.unstack(np.zeros(2), axis_renamed=0)
except TypeError:
    pass
assert _target_api_raised[-1][1]["bind"] is False

# The call-record check (§4.5): the first passes, the second must fail with
# the protocol's message.
exec(CALL_CHECK_OK, globals())
try:
    exec(CALL_CHECK_BAD, globals())
except AssertionError as e:
    assert "no call to the target API reproduces reference call 1/1 (return value differ)" in str(e), str(e)
else:
    raise AssertionError("mismatching expected record passed")
print("templates ok")
