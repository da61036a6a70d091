"""Fetching pinned Debian packages inside a repository rule.

`apt-get download` takes each package at an exact version from the machine's configured Debian archive,
its sha256 is checked against the pin, and `dpkg-deb -x` unpacks it into the repository. Nothing is
installed on the machine and nothing is taken from the host's PATH at build time.

Debian replaces versions at point releases, so a pin can vanish from the archive: the failure then says
which package to re-pin and where, rather than silently building with something else.
"""

def _run(rctx, what, arguments, working_directory = ""):
    rctx.report_progress(what)
    return rctx.execute(arguments, working_directory = working_directory, timeout = 1800, quiet = True)

def download_debian_packages(rctx, packages, pin_file, directory = "debs"):
    """Downloads pinned .debs and checks each one's sha256.

    Args:
      rctx: the repository_ctx.
      packages: dict of Debian package name -> [version, sha256].
      pin_file: where the pins live, named in errors so the fix is one edit away.
      directory: where the .debs go, relative to the repository root.

    Returns:
      A dict of package name -> path of its checked .deb.
    """
    who = rctx.name
    if rctx.which("apt-get") == None or rctx.which("dpkg-deb") == None:
        fail("{}: needs Debian's apt-get and dpkg-deb (this build runs on Debian 12)".format(who))
    rctx.file(directory + "/.keep", "")
    specs = ["{}={}".format(name, pin[0]) for name, pin in packages.items()]
    result = _run(
        rctx,
        "downloading {} pinned Debian packages".format(len(specs)),
        ["apt-get", "download", "--quiet=2"] + specs,
        working_directory = directory,
    )
    if result.return_code != 0:
        fail(("{who}: `apt-get download` failed:\n{err}\n" +
              "If apt's package lists are stale, run `apt-get update` and build again. If a version is " +
              "still not found, Debian has replaced it: see `apt-cache policy <package>` and update that " +
              "package's version and sha256 in {pins}.").format(
            who = who,
            err = result.stderr.strip()[-3000:],
            pins = pin_file,
        ))

    # apt-get names files <package>_<url-encoded version>_<arch>.deb; package names cannot hold "_".
    by_package = {}
    for path in rctx.path(directory).readdir():
        if path.basename.endswith(".deb"):
            by_package[path.basename.split("_")[0]] = path

    debs = {}
    for name, pin in packages.items():
        version, expected = pin[0], pin[1]
        if name not in by_package:
            fail("{}: apt-get reported success but left no .deb for {}".format(who, name))
        deb = by_package[name]
        digest = rctx.execute(["sha256sum", str(deb)]).stdout.split(" ")[0]
        if digest != expected:
            fail(("{who}: sha256 mismatch for Debian package {name}={version}:\n" +
                  "  pinned     {expected}\n  downloaded {digest}\n" +
                  "The archive now serves different bytes under this version. Check the new package " +
                  "(`apt-cache show {name}`), then update its sha256 in {pins}.").format(
                who = who,
                name = name,
                version = version,
                expected = expected,
                digest = digest,
                pins = pin_file,
            ))
        debs[name] = deb
    return debs

def extract_debian_packages(rctx, debs):
    """Unpacks checked .debs into the repository root with `dpkg-deb -x`, then deletes them."""
    for name, deb in debs.items():
        result = _run(rctx, "extracting " + name, ["dpkg-deb", "-x", str(deb), "."])
        if result.return_code != 0:
            fail("{}: `dpkg-deb -x` failed for {}:\n{}".format(rctx.name, name, result.stderr[-3000:]))
        rctx.delete(deb)
