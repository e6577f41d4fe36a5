"""`mcpbdd.kit.X` imported on one thread while another is still importing `mcpbdd.kit` is `mcpbdd_kit.X` too.

The import system does not wait for a parent package still running its `__init__` on another thread: it looks
its child up at once, on the parent's `__path__` (mcpbdd/kit/, which holds only stubs) with the finders
registered so far. If the alias's finder were registered only at the end of that `__init__` (after
`import mcpbdd_kit`), such a thread would get `No module named 'mcpbdd.kit.consent'` (a server importing its
tools from worker threads, a test runner importing in parallel). The window is made wide and certain here: a
finder that makes the first import of `mcpbdd_kit` run a second late. The alias's finder must also import
nothing while it is asked (the import system asks finders holding its global lock: waiting there for a module
another thread is running deadlocks both), so it defers the import to its loader. Its own interpreter: the
test needs a cold `mcpbdd.kit`.
"""

from __future__ import annotations

import subprocess
import sys

RACE = """
import importlib, importlib.abc, sys, threading, time
import mcpbdd

stalling = threading.Event()

class Stall(importlib.abc.MetaPathFinder):
    \"\"\"Runs `mcpbdd_kit`'s first import a second late (in its module's execution, where the import system
    holds only that module's lock: a finder's own sleep would hold every import on every thread).\"\"\"

    def find_spec(self, name, path, target=None):
        if name != "mcpbdd_kit" or "mcpbdd.kit" not in sys.modules or stalling.is_set():
            return None
        others = sys.meta_path[sys.meta_path.index(self) + 1 :]
        spec = next(s for s in (f.find_spec(name, path, target) for f in others) if s is not None)
        run = spec.loader.exec_module

        def late(module):
            stalling.set()
            time.sleep(1.0)
            run(module)

        spec.loader.exec_module = late
        return spec

sys.meta_path.append(Stall())
sys.meta_path.insert(0, sys.meta_path.pop())
parent = threading.Thread(target=importlib.import_module, args=("mcpbdd.kit",))
parent.start()
stalling.wait()  # `mcpbdd.kit` is in sys.modules, its __init__ in `import mcpbdd_kit`, which runs a second late
import mcpbdd.kit.consent as old
parent.join()
import mcpbdd_kit.consent as new
print(old is new)
"""


def test_a_submodule_imported_while_the_old_package_initialises_on_another_thread_is_the_kit_module() -> None:
    ran = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=30, check=False)
    assert ran.returncode == 0 and ran.stdout.strip() == "True", ran.stdout + ran.stderr
