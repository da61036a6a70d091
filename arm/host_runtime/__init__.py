"""The C++ runtime on the host, from Python: ctypes binding (binding.py), Program (program.py) and the
delegates that run in Python (host_delegates.py). Users import ``arm.run``."""
