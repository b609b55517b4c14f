#!/usr/bin/env python3
"""test_deb_package: the Debian package, built by cpack from this build folder and used from an
unpacked root only.

Builds the .deb into a temporary folder, checks it with lintian (no errors), appstreamcli and
desktop-file-validate, unpacks it with dpkg-deb -x (the package has no maintainer scripts: the
desktop and icon caches are refreshed by dpkg triggers), and from that root, in a clean
environment (no build tree on PATH, LD_LIBRARY_PATH or MLSTUDIO_RESOURCES; HOME and
MLSTUDIO_HOME in the temporary folder), runs the installed mlstudio: --version, doctor --json
(helpers from usr/lib/mlstudio, resources from usr/share/mlstudio), a short headless job from
the installed examples, its mlstudio:// address, the man pages and the bash completion.

usage: test_deb_package.py BUILD_DIR
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

PACKAGE_TIMEOUT = 300
JOB_TIMEOUT = 240


def fail(message):
    sys.exit("test_deb_package: FAIL: " + message)


def check(condition, message):
    if not condition:
        fail(message)
    print("ok:", message)


def run(argv, timeout=120, env=None, cwd=None):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd, check=False)
    return done.returncode, done.stdout, done.stderr


def must(argv, what, **kwargs):
    rc, out, err = run(argv, **kwargs)
    if rc != 0:
        fail(f"{what}: `{' '.join(argv)}` exited {rc}\n{out}\n{err}")
    return out


def build_package(build, out):
    """The .deb from cpack, written under out (build/packages is left as it is). cpack installs
    what the build made (target studio_package_files, part of all) and rebuilds nothing."""
    must(["cpack", "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"), "-B", out],
         "cpack", timeout=PACKAGE_TIMEOUT, cwd=build)
    debs = glob.glob(os.path.join(out, "mlstudio_*_amd64.deb"))
    check(len(debs) == 1, f"cpack made one mlstudio_<version>_amd64.deb ({debs})")
    return debs[0]


def validate_package(deb, root):
    rc, out, err = run(["lintian", "--fail-on", "error", deb], timeout=PACKAGE_TIMEOUT)
    errors = [line for line in out.splitlines() if line.startswith("E:")]
    warnings = [line for line in out.splitlines() if line.startswith("W:")]
    check(rc == 0 and not errors, f"lintian reports no errors ({errors or f'exit {rc}'}; "
          f"{len(warnings)} warnings)")
    metainfo = glob.glob(os.path.join(root, "usr/share/metainfo/*.metainfo.xml"))
    desktop = glob.glob(os.path.join(root, "usr/share/applications/*.desktop"))
    check(len(metainfo) == 1 and len(desktop) == 1, "one metainfo file and one desktop entry")
    must(["appstreamcli", "validate", "--no-net", metainfo[0]], "appstreamcli validate")
    must(["desktop-file-validate", desktop[0]], "desktop-file-validate")
    with open(desktop[0], encoding="utf-8") as f:
        entry = f.read()
    check("Exec=mlstudio %u" in entry and "MimeType=x-scheme-handler/mlstudio;" in entry,
          "the desktop entry hands mlstudio:// links to mlstudio")
    app_id = os.path.basename(desktop[0])[: -len(".desktop")]
    for size in (16, 32, 48, 64, 128, 256):
        png = os.path.join(root, f"usr/share/icons/hicolor/{size}x{size}/apps/{app_id}.png")
        with open(png, "rb") as f:
            head = f.read(24)
        width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        check(head[:8] == b"\x89PNG\r\n\x1a\n" and (width, height) == (size, size),
              f"icon {size}x{size} is a {width}x{height} PNG")
    check(os.path.isfile(os.path.join(root, f"usr/share/icons/hicolor/scalable/apps/{app_id}.svg")),
          "the scalable icon")


def check_binaries(root, build):
    for program in ("usr/bin/mlstudio", "usr/lib/mlstudio/studio-launcher",
                    "usr/lib/mlstudio/studio-train"):
        path = os.path.join(root, program)
        check(os.access(path, os.X_OK), f"{program} is installed and executable")
        dynamic = must(["readelf", "-d", path], "readelf -d")
        check("RPATH" not in dynamic and "RUNPATH" not in dynamic and build not in dynamic,
              f"{program} has no RPATH or RUNPATH")
        sections = must(["readelf", "-S", "-W", path], "readelf -S")
        check(".debug_info" not in sections and ".symtab" not in sections,
              f"{program} is stripped")


def clean_environment(root, home):
    return {
        "PATH": os.path.join(root, "usr/bin") + ":/usr/bin:/bin",
        "HOME": home,
        "MLSTUDIO_HOME": os.path.join(home, "studio"),
        "XDG_DATA_HOME": os.path.join(home, "data"),
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }


def check_doctor(root, env, version):
    mlstudio = os.path.join(root, "usr/bin/mlstudio")
    out = must([mlstudio, "--version"], "mlstudio --version", env=env)
    check(out.strip() == f"mlstudio {version}", f"--version prints the package's version "
          f"({out.strip()!r})")
    rc, out, err = run([mlstudio, "doctor", "--json"], env=env, timeout=180)
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        fail(f"doctor --json printed no JSON (exit {rc}): {out}\n{err}")
    lib = os.path.join(root, "usr/lib/mlstudio")
    check(report["studio_launcher"] == os.path.join(lib, "studio-launcher"),
          f"doctor finds studio-launcher in usr/lib/mlstudio ({report['studio_launcher']})")
    check(report["studio_train"]["path"] == os.path.join(lib, "studio-train"),
          f"doctor finds studio-train in usr/lib/mlstudio ({report['studio_train']['path']})")
    resources = report["resources"]
    check(resources["path"] == os.path.join(root, "usr/share/mlstudio") and
          resources["from"] == "installed",
          f"resources come from the root's usr/share/mlstudio ({resources})")
    check(rc == 0 and report["ok"], f"the installed studio-train probes ({report['trainer_error']})")


def check_job(root, env):
    """The smallest installed example (one node, two ranks, the built-in CNN), a few steps."""
    mlstudio = os.path.join(root, "usr/bin/mlstudio")
    spec = os.path.join(root, "usr/share/mlstudio/examples/fmnist-dp-1x2.json")
    must([mlstudio, "run", spec, "-q", "--set", "hyperparameters.epochs=1",
          "--set", "hyperparameters.max-steps=6", "--set", "hyperparameters.eval-samples=256",
          "--set", "hyperparameters.checkpoint-interval=3",
          "--set", "hyperparameters.log-interval=2"],
         "the installed example job", env=env, timeout=JOB_TIMEOUT)
    jobs = json.loads(must([mlstudio, "list", "jobs", "--json"], "list jobs", env=env))
    check(len(jobs) == 1 and jobs[0]["status"] == "Completed",
          f"the job Completed ({[(j['name'], j['status']) for j in jobs]})")
    name = jobs[0]["name"]
    points = json.loads(must([mlstudio, "metrics", name, "train:loss", "--json"], "metrics",
                             env=env))
    check(len(points) >= 3 and all(p["value"] > 0 for p in points),
          f"train:loss is in the store ({len(points)} points)")
    check(jobs[0]["job_dir"].startswith(env["MLSTUDIO_HOME"]),
          f"the job's folder is under MLSTUDIO_HOME ({jobs[0]['job_dir']})")

    rc, out, err = run([mlstudio, f"mlstudio://job/{name}"], env=env)
    check(rc == 0 and f"would open job {name}" in out and "Completed" in out,
          f"mlstudio://job/{name} without a display prints the job's summary (exit {rc})")
    rc, out, err = run([mlstudio, "mlstudio://job/a%zz"], env=env)
    check(rc == 2 and "two hex digits" in err, f"a bad address exits 2 ({err.strip()})")


def check_python_sdk(root, env):
    """The SDK is where Debian's python3 finds packages, and it reaches the installed CLI."""
    site = os.path.join(root, "usr/lib/python3/dist-packages")
    check(os.path.isfile(os.path.join(site, "mlstudio", "pytorch", "__init__.py")) or
          os.path.isfile(os.path.join(site, "mlstudio", "pytorch.py")),
          "the package holds mlstudio.pytorch")
    script = ("import mlstudio, json; from mlstudio.pytorch import PyTorch; "
              "print(json.dumps([mlstudio.__version__, PyTorch.__name__]))")
    out = must(["/usr/bin/python3", "-c", script], "import the installed mlstudio",
               env=dict(env, PYTHONPATH=site,
                        MLSTUDIO_CLI=os.path.join(root, "usr/bin/mlstudio")))
    check(json.loads(out)[1] == "PyTorch", f"mlstudio.pytorch.PyTorch imports ({out.strip()})")


def check_docs(root, env):
    for page in ("mlstudio.1.gz", "studio-launcher.1.gz"):
        path = os.path.join(root, "usr/share/man/man1", page)
        rc, out, err = run(["man", "--warnings", "-l", path], env=dict(env, MANWIDTH="80"))
        check(rc == 0 and not err.strip(), f"man renders {page} without warnings ({err.strip()})")
        if page == "mlstudio.1.gz":
            for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT",
                            "FILES", "EXIT STATUS", "SEE ALSO"):
                check(f"\n{section}\n" in out, f"mlstudio(1) has {section}")
            check("--tensorboard" in out.replace("\u2010", "-"),
                  "mlstudio(1) lists export's options")
    completion = os.path.join(root, "usr/share/bash-completion/completions/mlstudio")
    script = f"""
source {completion}
COMP_WORDS=(mlstudio ex); COMP_CWORD=1; _mlstudio; echo "${{COMPREPLY[*]}}"
COMP_WORDS=(mlstudio export --); COMP_CWORD=2; _mlstudio; echo "${{COMPREPLY[*]}}"
"""
    lines = must(["bash", "--norc", "-c", script], "bash completion", env=env).splitlines()
    check(lines[0] == "export", f"mlstudio ex<TAB> completes to export ({lines[0]!r})")
    check({"--experiment", "--tuning-job", "--csv", "--tensorboard"} <= set(lines[1].split()),
          f"mlstudio export --<TAB> offers export's options ({lines[1]!r})")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="studio-deb-") as tmp:
        deb = build_package(build, os.path.join(tmp, "out"))
        root = os.path.join(tmp, "root")
        must(["dpkg-deb", "-x", deb, root], "dpkg-deb -x")
        control = must(["dpkg-deb", "-e", deb, os.path.join(tmp, "control")], "dpkg-deb -e")
        scripts = [s for s in ("preinst", "postinst", "prerm", "postrm")
                   if os.path.exists(os.path.join(tmp, "control", s))]
        check(not scripts and not control, f"the package has no maintainer scripts ({scripts})")
        version = must(["dpkg-deb", "-f", deb, "Version"], "dpkg-deb -f").strip()
        validate_package(deb, root)
        check_binaries(root, build)
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = clean_environment(root, home)
        check_doctor(root, env, version)
        check_job(root, env)
        check_docs(root, env)
        check_python_sdk(root, env)
    print("test_deb_package: all checks passed")


if __name__ == "__main__":
    main()
