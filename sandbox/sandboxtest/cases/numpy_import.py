# P10: heavy imports work under the memory limit (cgroup RSS, no RLIMIT_AS).
import numpy
a = numpy.arange(10**6, dtype=numpy.float64)
print(numpy.__version__, float(a.sum()))
