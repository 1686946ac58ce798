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

"""Plumbing shared by the deployed services: ports, waiting, child
processes with their logs, and a notify socket in the role of systemd's.

Every wait here is bounded; every process is started in its own session so
that it (and whatever it forks) can be stopped as a group.
"""

import atexit
import contextlib
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import time

import requests

LOCALHOST = '127.0.0.1'


class ServiceError(Exception):
    """A service could not be set up, started or stopped."""


class TokenAPI(object):
    """An API of a stack, called with a token (and ``headers``)."""

    def __init__(self, url, token, timeout=30, headers=None):
        self.url = url
        self.session = requests.Session()
        self.session.headers.update(dict(headers or {}, **{
            'X-Auth-Token': token}))
        self.timeout = timeout

    def request(self, method, path, expect=(200,), **kwargs):
        """``method`` on ``path``; ServiceError for any status but
        ``expect``.
        """
        resp = self.session.request(method, self.url + path,
                                    timeout=self.timeout, **kwargs)
        if resp.status_code not in expect:
            raise ServiceError('%s %s: %d %s' % (
                method, path, resp.status_code, resp.text[:500]))
        return resp


def clean_env(**extra):
    """os.environ without OS_* variables and NOTIFY_SOCKET, plus ``extra``:
    what a child process of a test should see.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('OS_') and k != 'NOTIFY_SOCKET'}
    env.update(extra)
    return env


def as_root(argv):
    """``argv`` as a command line run as root: itself when we are root,
    else through ``sudo -n`` (which fails at once rather than ask for a
    password).
    """
    argv = [str(a) for a in argv]
    if os.geteuid() == 0:
        return argv
    sudo = shutil.which('sudo')
    if not sudo:
        raise ServiceError('%s needs root: run as root, or install sudo'
                           % os.path.basename(argv[0]))
    return [sudo, '-n'] + argv


def free_port(host=LOCALHOST):
    """A TCP port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_open(host, port, timeout=0.5):
    """Whether something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_until(predicate, timeout, what, interval=0.2, abort=None):
    """Call ``predicate`` until it returns something true and return that.

    :param abort: called between tries; a true answer (a reason) ends the
        wait at once with ServiceError, e.g. when the process that should
        become ready has died.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        reason = abort() if abort else None
        if reason:
            raise ServiceError('%s: %s' % (what, reason))
        if time.monotonic() > deadline:
            raise ServiceError('%s: not done after %ss' % (what, timeout))
        time.sleep(interval)


def tail(path, lines=40):
    """The last ``lines`` lines of a text file ('' if it does not exist)."""
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 256 * lines))
            text = f.read().decode('utf-8', 'replace')
    except OSError:
        return ''
    return '\n'.join(text.splitlines()[-lines:])


def run(argv, log_path=None, timeout=300, env=None, cwd=None, what=None):
    """Run a command to completion; raise ServiceError (with the end of its
    output) if it fails or takes longer than ``timeout``.
    """
    what = what or ' '.join(str(a) for a in argv[:3])
    log = open(log_path, 'ab') if log_path else None
    try:
        if log:
            log.write(('\n$ %s\n' % ' '.join(str(a) for a in argv)).encode())
            log.flush()
        proc = subprocess.run(
            [str(a) for a in argv], stdin=subprocess.DEVNULL,
            stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise ServiceError('%s: still running after %ss%s' % (
            what, timeout, _log_hint(log_path)))
    finally:
        if log:
            log.close()
    if proc.returncode != 0:
        output = (tail(log_path) if log_path
                  else proc.stdout.decode('utf-8', 'replace')[-4000:])
        raise ServiceError('%s: exit status %d\n%s' % (
            what, proc.returncode, output))
    return proc


def _log_hint(log_path):
    return (' (log: %s)\n%s' % (log_path, tail(log_path))) if log_path else ''


@contextlib.contextmanager
def file_lock(path, timeout=1800):
    """An exclusive lock on ``path`` (created if missing), so that two runs
    sharing a cache do not build the same thing at once.
    """
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'a') as f:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ServiceError('%s: still locked after %ss'
                                       % (path, timeout))
                time.sleep(1)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pid_alive(pid):
    """Whether ``pid`` runs (a zombie does not count)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ('Z', 'X')


def pid_cmdline(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            return f.read().replace(b'\0', b' ').decode('utf-8', 'replace')
    except OSError:
        return ''


class NotifySocket(object):
    """An AF_UNIX datagram socket that plays systemd's notify socket: a
    daemon started with NOTIFY_SOCKET=<path> sends READY=1 to it.
    """

    def __init__(self, path):
        if len(path.encode()) > 107:
            raise ServiceError('notify socket path too long: %s' % path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        self.path = path
        self.messages = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(path)

    def _receive(self, timeout):
        self._sock.settimeout(timeout)
        try:
            data = self._sock.recv(4096)
        except (socket.timeout, BlockingIOError):
            return False
        except OSError:     # closed
            return False
        self.messages.extend(data.decode('utf-8', 'replace').splitlines())
        return True

    def drain(self):
        """Collect what has arrived, without waiting."""
        while self._sock.fileno() != -1 and self._receive(0.01):
            pass
        return list(self.messages)

    def wait_for(self, message, timeout, abort=None):
        """Wait for a datagram with the line ``message`` (e.g. READY=1)."""
        deadline = time.monotonic() + timeout
        while message not in self.messages:
            reason = abort() if abort else None
            if reason:
                raise ServiceError('no %s: %s' % (message, reason))
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServiceError('no %s on %s within %ss'
                                   % (message, self.path, timeout))
            self._receive(min(left, 0.5))
        return True

    def close(self):
        self.drain()
        self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


# Processes started by this interpreter and not yet stopped or released:
# killed at exit, whatever ended the run, so that none is left behind.
_LIVE = set()


@atexit.register
def _kill_leftovers():
    for proc in list(_LIVE):
        proc._kill_group()
        _LIVE.discard(proc)


class Process(object):
    """A long-running child process, its log file and its pid file.

    The process runs in its own session (process group), so ``stop`` can
    make sure nothing it forked survives it. A Process can also be adopted
    from its pid file by a later command (``down`` of the CLI); then its
    exit status is unknown and ``stop`` returns None.
    """

    def __init__(self, name, argv, log_path, pid_path=None, env=None,
                 cwd=None, notify_path=None):
        self.name = name
        self.argv = [str(a) for a in argv]
        self.log_path = log_path
        self.pid_path = pid_path
        self.env = env
        self.cwd = cwd
        self.notify_path = notify_path
        self.notify = None
        self.pid = None
        self.returncode = None
        self._popen = None
        self._signalled = set()

    # -- starting

    def start(self, ready_timeout=60):
        """Start the process; with ``notify_path`` wait for READY=1."""
        env = dict(self.env if self.env is not None else os.environ)
        env.pop('NOTIFY_SOCKET', None)
        if self.notify_path:
            self.notify = NotifySocket(self.notify_path)
            env['NOTIFY_SOCKET'] = self.notify_path
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        with open(self.log_path, 'ab') as log:
            banner = '\n==== %s: %s\n' % (
                time.strftime('%F %T'), ' '.join(self.argv))
            log.write(banner.encode())
            log.flush()
            self._popen = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, env=env, cwd=self.cwd,
                start_new_session=True)
        self.pid = self._popen.pid
        _LIVE.add(self)
        if self.pid_path:
            with open(self.pid_path, 'w') as f:
                f.write('%d\n' % self.pid)
        if self.notify:
            try:
                self.notify.wait_for('READY=1', ready_timeout,
                                     abort=self._exited)
            except ServiceError as exc:
                self.stop(timeout=10)
                raise ServiceError('%s did not start: %s%s' % (
                    self.name, exc, _log_hint(self.log_path)))
        return self

    def _exited(self):
        if not self.running:
            return 'exited with status %s' % self.returncode
        return None

    @classmethod
    def adopt(cls, name, pid_path, log_path, expect):
        """The process of a pid file, if it still runs ``expect`` (a string
        its command line contains); None otherwise.
        """
        try:
            with open(pid_path) as f:
                pid = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        if not pid_alive(pid) or expect not in pid_cmdline(pid):
            return None
        proc = cls(name, [], log_path, pid_path=pid_path)
        proc.pid = pid
        return proc

    # -- state

    @property
    def running(self):
        if self._popen is not None:
            if self._popen.poll() is None:
                return True
            self.returncode = self._popen.returncode
            return False
        return self.pid is not None and pid_alive(self.pid)

    def wait_for_message(self, message, timeout):
        if not self.notify:
            raise ServiceError('%s has no notify socket' % self.name)
        return self.notify.wait_for(message, timeout)

    def release(self):
        """Leave the process running on its own: close our end of its
        notify socket (its later STOPPING=1 then goes nowhere, which the
        daemons only warn about).
        """
        if self.notify:
            self.notify.close()
            self.notify = None
        _LIVE.discard(self)

    # -- stopping

    def send_signal(self, signum):
        self._signalled.add(signum)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signum)

    def wait(self, timeout):
        """Wait for the process to end; its exit status (None if adopted or
        still running).
        """
        if self._popen is not None:
            try:
                self.returncode = self._popen.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
            return self.returncode
        deadline = time.monotonic() + timeout
        while pid_alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        return None

    def stop(self, timeout=30, signum=signal.SIGTERM):
        """Send ``signum`` (SIGTERM), wait up to ``timeout`` seconds, then
        kill whatever is left of the process group. Returns the exit status
        (None for an adopted process; -9 if it had to be killed).
        """
        if self.pid is None:
            return None
        killed = False
        if self.running:
            if signum not in self._signalled:
                self.send_signal(signum)
            self.wait(timeout)
            if self.running:
                killed = True
                self._kill_group()
                self.wait(10)
        # Workers the process forked die with it; make sure.
        self._kill_group()
        _LIVE.discard(self)
        if self.notify:
            self.notify.close()
        if self.pid_path:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.pid_path)
        return -9 if killed else self.returncode

    def _kill_group(self):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
