#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""What a benchmark run records besides its figures, and its verdict.

``Run`` notes the tree measured (``git rev-parse --short HEAD``, and
whether tracked files differ from it), the command line, the time and
the load average when the run starts and ends; ``Run.goal`` collects the
stated goals, ``Run.report`` prints them, met or missed, with the tree
and the load, and returns the exit status (1 when a goal was missed).

The benchmarks import it from their own directory (``tools/bench`` is on
their ``sys.path`` when run as ``python tools/bench/<name>.py``)::

    import _record
    run = _record.Run()
    ...                                   # measure
    run.goal('p50 ratio <= 1.5', ratio <= 1.5, '%.2f' % ratio)
    sys.exit(run.report())
"""

import os
import shlex
import subprocess
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))


def tree(path=_HERE):
    """The checkout ``path`` is in: ``'<short hash>'``, with
    ``' + uncommitted changes'`` when tracked files differ from it;
    ``'unknown'`` outside a git checkout.
    """
    def git(*args):
        return subprocess.run(('git', '-C', path) + args,
                              capture_output=True, text=True, timeout=30)
    try:
        head = git('rev-parse', '--short', 'HEAD')
        if head.returncode:
            return 'unknown'
        changed = git('status', '--porcelain', '--untracked-files=no')
    except (OSError, subprocess.SubprocessError):
        return 'unknown'
    dirty = ' + uncommitted changes' if changed.stdout.strip() else ''
    return head.stdout.strip() + dirty


def load():
    """The 1, 5 and 15-minute load averages, as ``uptime`` prints them."""
    return '%.2f %.2f %.2f' % os.getloadavg()


class Run(object):
    """One run of a benchmark: its tree, command, time and load, and its
    goals.
    """

    def __init__(self, argv=None):
        self.tree = tree()
        self.command = shlex.join(argv if argv is not None else sys.argv)
        self.started = time.strftime('%Y-%m-%d %H:%M:%S %Z')
        self.load_before = load()
        self.load_after = None
        self.cpus = os.cpu_count() or 0
        #: [(goal, met, measured)]
        self.goals = []

    def goal(self, text, met, measured=''):
        """Note a stated goal, whether it was met, and the figure."""
        self.goals.append((text, bool(met), measured))
        return bool(met)

    @property
    def missed(self):
        return [text for text, met, _measured in self.goals if not met]

    def finish(self):
        """Note the load at the end (once; report calls it)."""
        if self.load_after is None:
            self.load_after = load()

    def header(self):
        """One line: tree, time, CPUs and load, for the run's output."""
        self.finish()
        return ('tree %s, %s, %d CPU(s), load average %s before / %s after; '
                'command: %s' % (self.tree, self.started, self.cpus,
                                 self.load_before, self.load_after,
                                 self.command))

    def as_dict(self):
        """The record, for a ``--json-out`` file."""
        self.finish()
        return {'tree': self.tree, 'command': self.command,
                'started': self.started, 'cpus': self.cpus,
                'load_before': self.load_before,
                'load_after': self.load_after,
                'goals': [{'goal': text, 'met': met, 'measured': measured}
                          for text, met, measured in self.goals]}

    def report(self, stream=None):
        """Print the goals and the record; return the exit status: 1 when
        a goal was missed, else 0.
        """
        stream = stream or sys.stdout
        print(file=stream)
        for text, met, measured in self.goals:
            print('  %-6s %s%s' % ('met' if met else 'MISSED', text,
                                   ' (%s)' % measured if measured else ''),
                  file=stream)
        print(self.header(), file=stream, flush=True)
        return 1 if self.missed else 0
