"""pytest_test: a py_test whose test cases are pytest functions in `srcs`."""

def pytest_test(name, srcs, deps = [], args = [], data = [], **kwargs):
    """A py_test that runs pytest over `srcs`.

    Args:
      name: target name.
      srcs: pytest files (test_* functions); all of them are collected.
      deps: py_library dependencies.
      args: extra pytest arguments (e.g. ["-k", "int8"]).
      data: runtime data files.
      **kwargs: passed to py_test (tags, size, timeout, shard_count...).
    """
    native.py_test(
        name = name,
        srcs = srcs + ["//tools/pytest:pytest_main.py"],
        main = "//tools/pytest:pytest_main.py",
        args = ["$(rootpath {})".format(src) for src in srcs] + args,
        data = data,
        deps = deps,
        python_version = "PY3",
        **kwargs
    )
