"""python/pyproject.toml: `pip install ./python` (or -e) gives the package `swinup` and its
commands. Each console entry point names a module and function that exist (the function every
`python -m swinup.<module>` runs); the dependencies are pinned to the versions Debian 12 installs
(scripts/packages.sh: python3-torch, python3-numpy), as their metadata spells them; the version is
the library's. Then the real thing, offline: the package installed into a temporary virtual
environment that sees the system's packages (--system-site-packages --no-build-isolation
--no-index: with Debian's torch and numpy the pins must be satisfied by them, nothing can be
downloaded; with others, --no-deps), its commands present and answering --help, and an installed
copy finding the repository's shipped files from the repository root (shipped.find_root)."""
import ast
import importlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import tomllib  # Python 3.11 (Debian 12)
except ImportError:  # pragma: no cover
    tomllib = None

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REPO = os.path.abspath(os.path.join(PYTHON_DIR, ".."))
sys.path.insert(0, PYTHON_DIR)
from swinup import shipped  # noqa: E402

DEBIAN_PACKAGES = {"torch": "python3-torch", "numpy": "python3-numpy"}


def pyproject():
    with open(os.path.join(PYTHON_DIR, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def pins():
    """{'torch': '1.13.0a0', 'numpy': '1.24.2'} of the dependencies' '=='."""
    found = (re.fullmatch(r"([A-Za-z0-9_.-]+)==([0-9a-z.]+)", d) for d in pyproject()["project"]["dependencies"])
    return dict(m.groups() for m in found if m)


def debian_distribution_version(module):
    """The version the metadata of Debian's package of `module` gives (what pip sees), with its local
    label ('+gitunknown') dropped; None when `module` is not installed from a Debian package."""
    try:
        dist = importlib.metadata.distribution(module)
    except importlib.metadata.PackageNotFoundError:
        return None
    if not str(dist.locate_file("")).startswith("/usr/lib/python3/dist-packages"):
        return None
    return dist.version.split("+")[0]


@unittest.skipIf(tomllib is None, "tomllib needs Python 3.11")
class PyprojectTest(unittest.TestCase):
    def test_entry_points_resolve_to_the_modules_main(self):
        scripts = pyproject()["project"]["scripts"]
        self.assertEqual(set(scripts), {"swinup-train", "swinup-export", "swinup-promote",
                                        "swinup-average-checkpoints"})
        for command, target in scripts.items():
            module_name, function_name = target.split(":")
            module = importlib.import_module(module_name)
            self.assertTrue(callable(getattr(module, function_name, None)), f"{command}: {target}")
            # `python -m <module>` runs the same function.
            with open(module.__file__, encoding="utf-8") as f:
                self.assertIn(f'if __name__ == "__main__":\n    {function_name}()', f.read(), command)

    def test_dependencies_are_pinned_to_debians_versions(self):
        dependencies = pyproject()["project"]["dependencies"]
        self.assertEqual(len(pins()), len(dependencies), dependencies)  # every one pinned with ==
        self.assertEqual(set(pins()), set(DEBIAN_PACKAGES))
        # Every third-party module the package imports is one of them.
        imported = set()
        for folder, _, files in os.walk(os.path.join(PYTHON_DIR, "swinup")):
            for name in files:
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        tree = ast.parse(f.read())
                    for node in ast.walk(tree):
                        if isinstance(node, ast.Import):
                            imported |= {alias.name.split(".")[0] for alias in node.names}
                        elif isinstance(node, ast.ImportFrom) and node.level == 0:
                            imported.add(node.module.split(".")[0])
        third_party = {m for m in imported if m not in sys.stdlib_module_names and m != "swinup"}
        self.assertEqual(third_party, set(pins()))
        # The pins are what Debian's packages say they are (scripts/packages.sh installs them).
        installed = {m: debian_distribution_version(m) for m in DEBIAN_PACKAGES}
        if None in installed.values():
            self.skipTest(f"not Debian's packages here: {installed}")
        self.assertEqual(installed, pins())

    def test_version_is_the_librarys(self):
        with open(os.path.join(REPO, "include", "swinup", "swinup.h"), encoding="utf-8") as f:
            header = f.read()
        parts = [re.search(rf"#define SWINUP_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.assertEqual(pyproject()["project"]["version"], ".".join(parts))


class FindRootTest(unittest.TestCase):
    def test_environment_then_checkout_then_current_directory(self):
        self.assertTrue(shipped.is_repository(REPO))
        self.assertEqual(shipped.ROOT, REPO)  # the checkout this package is in
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(shipped.find_root({"SWINUP_REPO": tmp}), os.path.abspath(tmp))
            self.assertFalse(shipped.is_repository(tmp))


def venv_tools_missing():
    """Why the install test cannot run here, or None."""
    try:
        import ensurepip  # noqa: F401  (Debian: python3-venv)
        import setuptools  # noqa: F401
        import wheel  # noqa: F401  (setuptools < 70 builds wheels through it)
    except ImportError as e:
        return f"{e.name} is missing (Debian: python3-venv, python3-setuptools, python3-wheel)"
    return None


@unittest.skipIf(tomllib is None or venv_tools_missing(), venv_tools_missing() or "tomllib needs Python 3.11")
class InstallTest(unittest.TestCase):
    def test_pip_install_gives_the_commands(self):
        with tempfile.TemporaryDirectory() as tmp:
            # A copy of what the package is made of, so that the build leaves nothing in python/.
            source = os.path.join(tmp, "src")
            os.makedirs(source)
            for name in ("pyproject.toml", "README.md"):
                shutil.copy(os.path.join(PYTHON_DIR, name), source)
            shutil.copytree(os.path.join(PYTHON_DIR, "swinup"), os.path.join(source, "swinup"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            debian = None not in (debian_distribution_version(m) for m in DEBIAN_PACKAGES)
            install = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--quiet"] +
                                     ([] if debian else ["--no-deps"]) + [source], capture_output=True, text=True)
            self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
            for command in pyproject()["project"]["scripts"]:
                path = os.path.join(venv, "bin", command)
                self.assertTrue(os.access(path, os.X_OK), command)
            helped = subprocess.run([os.path.join(venv, "bin", "swinup-export"), "--help"], capture_output=True,
                                    text=True, cwd=REPO)
            self.assertEqual(helped.returncode, 0, helped.stderr)
            self.assertIn("RUN_DIR", helped.stdout)
            # The installed copy (not this checkout) reads the shipped files of the repository it
            # is run from, and only there.
            where = [python, "-c", "import swinup.shipped as s; print(s.__file__); print(s.ROOT)"]
            inside = subprocess.run(where, capture_output=True, text=True, cwd=REPO, check=True).stdout.split()
            self.assertTrue(inside[0].startswith(venv), inside[0])
            self.assertEqual(inside[1], REPO)
            outside = subprocess.run(where, capture_output=True, text=True, cwd=tmp, check=True).stdout.split()
            self.assertFalse(shipped.is_repository(outside[1]), outside[1])


if __name__ == "__main__":
    unittest.main()
