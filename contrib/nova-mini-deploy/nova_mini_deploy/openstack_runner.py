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

"""Run a console script (``openstack``) many times in one process.

Starting python-openstackclient costs over a second of imports each time.
A runner is one long-lived interpreter (the script's own, from its ``#!``
line) that executes the unchanged script file once per request, as if it
had just been started with that argv, environment and working directory,
stdin on /dev/null and fds 1 and 2 on files it then answers with. Between
requests it puts back the logging and warnings state the command changed,
so that every command starts like a new process would.

Protocol (one JSON line each way, over the runner's stdin and stdout)::

    -> {"argv": [...], "env": {...}, "cwd": "..."}
    <- {"returncode": N, "stdout": "...", "stderr": "..."}

(output as latin-1 text: the bytes, unchanged). :class:`Pool` is the
caller's side: :meth:`Pool.run` answers a ``subprocess.CompletedProcess``
like ``subprocess.run(..., capture_output=True, text=True)`` would, and
kills the runner of a command that outlives its timeout.

This file is also the runner: ``python openstack_runner.py SCRIPT``. It
imports nothing but the standard library before the script runs.
"""

import json
import locale
import logging
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings


def run_process(script, args, env, timeout):
    """``script ARGS`` as a new process: what the runner stands in for."""
    return subprocess.run(
        [script] + [str(arg) for arg in args], capture_output=True,
        text=True, stdin=subprocess.DEVNULL, env=env, timeout=timeout)


def interpreter(script):
    """The Python of ``script``'s ``#!`` line, else this one."""
    try:
        with open(script, 'rb') as f:
            first = f.readline().decode('utf-8', 'replace').strip()
    except OSError:
        return sys.executable
    if first.startswith('#!'):
        parts = first[2:].split()
        if len(parts) == 1 and os.access(parts[0], os.X_OK):
            return parts[0]
    return sys.executable


def _text(raw):
    """Runner output as ``subprocess.run(text=True)`` would decode it."""
    data = raw.encode('latin-1')
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace('\r\n', '\n').replace('\r', '\n')


class RunnerGone(Exception):
    pass


class Runner(object):
    """One runner process of ``script``, its stderr appended to
    ``log_path`` (None: discarded).
    """

    def __init__(self, script, log_path=None, env=None):
        self.script = script
        log = (open(log_path, 'ab') if log_path
               else open(os.devnull, 'wb'))
        with log:
            self.proc = subprocess.Popen(
                [interpreter(script), os.path.abspath(__file__), script],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                env=env, close_fds=True)

    def request(self, argv, env, cwd, timeout):
        """``(returncode, stdout, stderr)`` of one command; raises
        subprocess.TimeoutExpired (the runner killed) or RunnerGone.
        """
        line = json.dumps({'argv': argv, 'env': env, 'cwd': cwd}) + '\n'
        try:
            self.proc.stdin.write(line.encode('utf-8'))
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise RunnerGone(self.stop())
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        chunks = []
        while not chunks or not chunks[-1].endswith(b'\n'):
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self.stop()
                raise subprocess.TimeoutExpired([self.script] + argv,
                                                timeout)
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise RunnerGone(self.stop())
                chunks.append(chunk)
        answer = json.loads(b''.join(chunks))
        return (answer['returncode'], _text(answer['stdout']),
                _text(answer['stderr']))

    def stop(self):
        """Kill the runner; its exit status."""
        if self.proc.poll() is None:
            self.proc.kill()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        return self.proc.wait()


class Pool(object):
    """Runners of ``script``, started when needed (one per command in
    flight), kept for the next commands until :meth:`close`.
    """

    def __init__(self, script, log_path=None):
        self.script = script
        self.log_path = log_path
        self._idle = []
        self._lock = threading.Lock()

    def run(self, args, env, timeout=None, cwd=None):
        argv = [str(arg) for arg in args]
        with self._lock:
            runner = self._idle.pop() if self._idle else None
        if runner is None:
            # The runner's own environment: the command's, but OS_*
            # variables come with each command.
            runner = Runner(self.script, self.log_path, env={
                k: v for k, v in env.items() if not k.startswith('OS_')})
        try:
            code, out, err = runner.request(argv, env, cwd or os.getcwd(),
                                            timeout)
        except RunnerGone as gone:
            code, out, err = gone.args[0], '', ''
        else:
            with self._lock:
                self._idle.append(runner)
        return subprocess.CompletedProcess([self.script] + argv, code,
                                           out, err)

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for runner in idle:
            runner.stop()


# -- the runner's side


# Module-level settings of the client plugins put back after every
# command: e.g. python-ironicclient's OS_BAREMETAL_API_LATEST, turned off
# for good by one command given an API version, after which the next
# asked for the client's newest version without negotiating it.
_SETTING_TYPES = (bool, int, float, str, bytes, type(None))


def _plugin_modules():
    clientmanager = sys.modules.get('openstackclient.common.clientmanager')
    return list(getattr(clientmanager, 'PLUGIN_MODULES', None) or [])


class _Snapshot(object):
    """The logging and warnings state, and the client plugins' module
    settings, to put back after every command.
    """

    def __init__(self):
        self.settings = [
            (module, {name: value for name, value in vars(module).items()
                      if isinstance(value, _SETTING_TYPES)
                      and not name.startswith('__')})
            for module in _plugin_modules()]
        manager = logging.Logger.manager
        self.loggers = {
            name: (lg.level, list(lg.handlers), lg.propagate, lg.disabled)
            for name, lg in list(manager.loggerDict.items())
            if isinstance(lg, logging.Logger)}
        root = logging.getLogger()
        self.root = (root.level, list(root.handlers))
        self.disable = manager.disable
        self.filters = list(warnings.filters)
        self.showwarning = warnings.showwarning
        self.captured = logging._warnings_showwarning is not None

    def restore(self):
        for module, settings in self.settings:
            vars(module).update(settings)
        manager = logging.Logger.manager
        handlers = set()
        for name, lg in list(manager.loggerDict.items()):
            if not isinstance(lg, logging.Logger):
                continue
            handlers.update(lg.handlers)
            level, kept, propagate, disabled = self.loggers.get(
                name, (logging.NOTSET, [], True, False))
            lg.setLevel(level)
            lg.handlers[:] = kept
            lg.propagate, lg.disabled = propagate, disabled
        root = logging.getLogger()
        handlers.update(root.handlers)
        root.setLevel(self.root[0])
        root.handlers[:] = self.root[1]
        kept = set(self.root[1]).union(
            *(entry[1] for entry in self.loggers.values()))
        for handler in handlers - kept:
            try:
                handler.close()     # a --log-file
            except Exception:
                pass
        logging.disable(self.disable)
        manager._clear_cache()
        logging.captureWarnings(self.captured)
        warnings.filters[:] = self.filters
        warnings.showwarning = self.showwarning
        mutated = getattr(warnings, '_filters_mutated', None)
        if mutated:
            mutated()
        # "once" and "default" warnings show again, as in a new process.
        warnings.onceregistry.clear()
        for module in list(sys.modules.values()):
            registry = getattr(module, '__warningregistry__', None)
            if isinstance(registry, dict):
                registry.clear()


def _forget_clients():
    """osc-lib's ClientManager keeps the client handles of the plugins
    (compute, baremetal, ...) on the class, in ClientCache descriptors: a
    new process starts without them, and so must the next command (they
    hold the last command's credentials).
    """
    clientmanager = sys.modules.get('osc_lib.clientmanager')
    if clientmanager is None:
        return
    classes = [clientmanager.ClientManager]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        for value in list(vars(cls).values()):
            if isinstance(value, clientmanager.ClientCache):
                value._handle = None


def _exit_status(exc):
    """The exit status of a process ending with SystemExit ``exc``, the
    way the interpreter makes it (printing a non-integer code).
    """
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xff
    print(code, file=sys.stderr)
    return 1


def _run_one(script, code, request, out, err):
    os.environ.clear()
    os.environ.update(request['env'])
    os.chdir(request['cwd'])
    sys.argv = [script] + request['argv']
    for f in (out, err):
        f.seek(0)
        f.truncate()
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    sys.stdin = open(os.devnull)
    sys.stdout = open(1, 'w', closefd=False)
    sys.stderr = open(2, 'w', buffering=1, closefd=False,
                      errors='backslashreplace')
    try:
        exec(code, {'__name__': '__main__', '__file__': script,
                    '__builtins__': __builtins__})
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException:
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    sys.stdin.close()
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    results = []
    for f in (out, err):
        f.seek(0)
        results.append(f.read().decode('latin-1'))
    return {'returncode': status, 'stdout': results[0],
            'stderr': results[1]}


def serve(script):
    # As the script run by its path would: its directory first on the
    # path, not this one's.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    with open(script, 'rb') as f:
        code = compile(f.read(), script, 'exec')
    requests = os.fdopen(os.dup(0), 'rb')
    answers = os.dup(1)
    log = os.dup(2)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    # The script's imports, before the snapshot: what a new process has
    # done by the time the command starts (cliff names the program after
    # sys.argv[0] when imported).
    sys.argv = [script]
    exec(code, {'__name__': '__warm_up__', '__file__': script,
                '__builtins__': __builtins__})
    snapshot = _Snapshot()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        for line in requests:
            try:
                answer = _run_one(script, code, json.loads(line), out, err)
            finally:
                # (The runner's own errors go to its log.)
                os.dup2(null, 1)
                os.dup2(log, 2)
            snapshot.restore()
            _forget_clients()
            data = (json.dumps(answer) + '\n').encode('utf-8')
            while data:
                data = data[os.write(answers, data):]


if __name__ == '__main__':
    serve(sys.argv[1])
