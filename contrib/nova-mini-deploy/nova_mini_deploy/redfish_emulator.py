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

"""A Redfish BMC emulator: sushy-tools' ``sushy-emulator`` with its fake
systems driver, for the redfish hardware type's live tests, the quick
start and the benchmarks.

The venv (``sushy-tools==2.2.0``) is built once under
``${NOVA_MINI_CACHE:-~/.cache/nova_mini}/sushy-tools-venv``
(nova_mini_deploy.venvs, pinned by ``tools/constraints/sushy-tools.txt``).
Each emulator gets its own state directory: the config file, the fake
driver's SQLite store of the systems' state, the log, and, when asked
for, an htpasswd file (basic auth) and a throw-away CA with a server
certificate for 127.0.0.1 and localhost (TLS).

The fake driver keeps the systems in its store; nothing is powered or
booted. What it simulates, in 2.2.0:

- a power change (``ComputerSystem.Reset``) is answered 204 at once and
  seen by a later GET after 0 to 11 seconds: the driver sets the state's
  time to ``int(now) + randint(1, 11)``. ``power_delay=(low, high)``
  makes that ``randint(low, high)`` (``(0, 0)``: seen by the next GET);
  the emulator has no option of its own for it, so the launcher script
  replaces the fake driver's ``random`` in the emulator's process. A
  reset to the state the system shows is ignored even while another
  change is pending (a power on sent during a pending power off is lost).
  A restart shows ``Off`` at once, ``On`` after the delay; ``Nmi`` is
  answered 501.
- virtual media: devices ``Cd`` (CD, DVD) and ``Floppy`` (Floppy,
  USBStick) under ``/redfish/v1/Systems/<id>/VirtualMedia`` (the
  manager links there too); InsertMedia downloads the image URL, whole,
  into the emulator's temporary directory (here ``<state>/tmp``) before
  it answers 204, and fails when it cannot: 400 for a 4xx of the image's
  server, 502 for a 5xx, 500 when it cannot connect; EjectMedia deletes
  the file. The systems' boot override targets are Pxe, Cd, Hdd and
  UefiHttp (no Usb nor Floppy).

The launcher (``sushy-emulator-launcher.py``, written into the state
directory and run by the venv's python) also makes SIGTERM end the
emulator with status 0 and logs the emulator's own INFO lines (power
changes, virtual media) beside the request lines.
"""

import base64
import contextlib
import datetime
import hashlib
import json
import logging
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request
import uuid


from nova_mini_deploy import tls
from nova_mini_deploy import util
from nova_mini_deploy import venvs

LOG = logging.getLogger(__name__)

VERSION = '2.2.0'
NAME = 'sushy-emulator'

# The fake systems' UUIDs are uuid5 of their names in this namespace: the
# same names give the same systems on every run and machine.
SYSTEM_NAMESPACE = uuid.UUID('f893537a-d617-4618-bbac-4cc3b075ab24')
SYSTEM_PREFIX = 'nova-mini-bmc'
SYSTEMS_PATH = '/redfish/v1/Systems'

# The emulator checks the password of every request with bcrypt, without
# a cache: at bcrypt's default cost (12) that is a quarter of a second of
# CPU per request. The emulator's credentials are a test's, so the
# cheapest cost by default.
BCRYPT_ROUNDS = 4

POWER_DELAY_ENV = 'NOVA_MINI_EMULATOR_POWER_DELAY'

LAUNCHER = """# Written by nova_mini_deploy.redfish_emulator: sushy-emulator's main,
# with SIGTERM as a clean stop, the emulator's INFO lines logged (without
# terminal colours), and the fake driver's power delay narrowed when
# {env} is "LOW,HIGH".
import logging
import os
import random
import signal
import sys


def _stop(signum, frame):
    raise KeyboardInterrupt()


signal.signal(signal.SIGTERM, _stop)
signal.signal(signal.SIGINT, signal.default_int_handler)
logging.getLogger('sushy_tools.emulator.main').setLevel(logging.INFO)
try:
    # A log file: no terminal colours in the request lines.
    from werkzeug import serving
    serving._log_add_style = False
except (ImportError, AttributeError):
    pass

_delay = os.environ.get('{env}')
if _delay:
    from sushy_tools.emulator.resources.systems import fakedriver

    _low, _high = (int(v) for v in _delay.split(','))

    class _Delay(object):
        @staticmethod
        def randint(low, high):
            return random.randint(_low, _high)

    fakedriver.random = _Delay()

from sushy_tools.emulator import main  # noqa: E402

sys.argv[0] = 'sushy-emulator'
sys.exit(main.main())
""".format(env=POWER_DELAY_ENV)

HTPASSWD = """import sys
import bcrypt
user, password, rounds = sys.stdin.read().split('\\n')[:3]
digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(int(rounds)))
print('%s:%s' % (user, digest.decode()))
"""


def venv_dir():
    return (os.environ.get('NOVA_MINI_SUSHY_TOOLS_VENV')
            or os.path.join(venvs.cache_dir(), 'sushy-tools-venv'))


def ensure_venv(path=None, timeout=1200):
    """Build the sushy-tools venv unless a complete one is there; its
    path.
    """
    return venvs.ensure(path or venv_dir(), ['sushy-tools==%s' % VERSION],
                        ('sushy-emulator',), timeout=timeout,
                        constraints=venvs.constraints_file('sushy-tools'))


def fake_systems(count, prefix=SYSTEM_PREFIX):
    """``count`` systems ``<prefix>-0``..: name, uuid (uuid5 of the name),
    system_id (the path of the system, Ironic's ``redfish_system_id``)
    and the MAC of its one NIC, all derived from the name.
    """
    systems = []
    for index in range(count):
        name = '%s-%d' % (prefix, index)
        system_uuid = str(uuid.uuid5(SYSTEM_NAMESPACE, name))
        digest = hashlib.sha256(name.encode()).digest()
        mac = '52:54:00:%02x:%02x:%02x' % tuple(digest[:3])
        systems.append({'name': name, 'uuid': system_uuid,
                        'system_id': '%s/%s' % (SYSTEMS_PATH, system_uuid),
                        'mac': mac})
    return systems


def _write(path, data, mode=0o644):
    """Write ``data`` (str or bytes) to a new file of ``mode``."""
    if isinstance(data, str):
        data = data.encode()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, 'wb') as f:
        f.write(data)


def make_certificates(directory, hosts=('127.0.0.1', 'localhost'),
                      days=30):
    """A throw-away CA and a server certificate it signed for ``hosts``
    (IP addresses and DNS names): ``(ca, cert, key)``, the paths of the
    PEM files written in ``directory`` (ca.pem, server.pem, server.key;
    the CA's key is not kept).
    """
    valid = tls.validity(datetime.timedelta(hours=1),
                         datetime.timedelta(days=days))
    ca_key, ca_cert = tls.make_ca(
        'nova_mini test CA %s' % uuid.uuid4().hex[:8], valid)
    key, cert = tls.issue(ca_key, ca_cert, hosts, valid)
    paths = tuple(os.path.join(directory, name)
                  for name in ('ca.pem', 'server.pem', 'server.key'))
    _write(paths[0], tls.pem_certificate(ca_cert))
    _write(paths[1], tls.pem_certificate(cert))
    _write(paths[2], tls.pem_key(key), mode=0o600)
    return paths


def htpasswd_line(venv, username, password, rounds=BCRYPT_ROUNDS):
    """The line of an Apache user file for ``username`` with the bcrypt
    digest of ``password`` (the only digest the emulator accepts), made
    with the bcrypt of the emulator's venv; the password goes through a
    pipe, never the command line.
    """
    if ':' in username or '\n' in username + password:
        raise util.ServiceError('the emulator user file takes no ":" in '
                                'a user name, no newline in either')
    proc = subprocess.run(
        [os.path.join(venv, 'bin', 'python'), '-c', HTPASSWD],
        input='%s\n%s\n%d\n' % (username, password, rounds),
        capture_output=True, text=True, timeout=60, env=venvs.clean_env())
    if proc.returncode != 0:
        raise util.ServiceError('bcrypt of the emulator venv failed: %s'
                                % proc.stderr[-2000:])
    return proc.stdout.strip()


class RedfishEmulator(object):
    """One sushy-emulator with the fake driver, of one state directory.

    :param state_dir: its files (created if missing).
    :param systems: how many fake systems (fake_systems()).
    :param port: its TCP port on ``host`` (default: a free one).
    :param auth: None (no authentication) or ``(username, password)``:
        basic auth with an htpasswd file; the service root
        (``/redfish/v1``) answers without, as the emulator has it.
    :param tls: serve HTTPS with a certificate of a throw-away CA
        (``ca_file``).
    :param power_delay: None (the fake driver's own 0-11 s) or
        ``(low, high)`` whole seconds (see the module's doc).
    :param prefix: the systems' names' prefix.
    :param keep_state: keep the systems' state (power, boot device,
        media) that an earlier emulator of the state directory left; by
        default every start begins with the systems powered off.
    """

    def __init__(self, state_dir, systems=4, port=None, auth=None,
                 tls=False, power_delay=None, venv=None,
                 host=util.LOCALHOST, prefix=SYSTEM_PREFIX,
                 bcrypt_rounds=BCRYPT_ROUNDS, name=NAME, keep_state=False):
        self.state_dir = os.path.abspath(state_dir)
        self.name = name
        self.host = host
        self.port = port
        self.venv = venv or venv_dir()
        self.systems = fake_systems(systems, prefix)
        self.auth = tuple(auth) if auth else None
        self.tls = bool(tls)
        if power_delay is not None:
            low, high = (int(v) for v in power_delay)
            if not 0 <= low <= high:
                raise ValueError('power_delay: 0 <= low <= high, not %r'
                                 % (power_delay,))
            power_delay = (low, high)
        self.power_delay = power_delay
        self.bcrypt_rounds = bcrypt_rounds
        self.keep_state = keep_state
        self.process = None
        base = os.path.join(self.state_dir, name)
        self.conf_path = base + '.conf'
        self.log_path = base + '.log'
        self.pid_path = base + '.pid'
        self.info_path = base + '.json'
        self.launcher_path = base + '-launcher.py'
        self.auth_file = base + '.htpasswd' if self.auth else None
        self.store_dir = os.path.join(self.state_dir, name + '-store')
        self.tmp_dir = os.path.join(self.state_dir, 'tmp')
        self.ca_file = None
        self.cert_file = None
        self.key_file = None

    # -- what clients need

    @property
    def url(self):
        return '%s://%s:%d' % ('https' if self.tls else 'http', self.host,
                               self.port)

    @property
    def username(self):
        return self.auth[0] if self.auth else None

    @property
    def password(self):
        return self.auth[1] if self.auth else None

    @property
    def verify(self):
        """What ``requests`` takes as ``verify``: the CA file with TLS."""
        return self.ca_file if self.tls else True

    def describe(self):
        """A JSON-able description (url, CA, credentials, systems)."""
        return {'url': self.url, 'ca_file': self.ca_file,
                'username': self.username, 'password': self.password,
                'power_delay': self.power_delay, 'log': self.log_path,
                'pid_file': self.pid_path, 'systems': self.systems}

    # -- set up

    def setup(self):
        """Build the venv if missing and write the config, the launcher
        and, as asked, the user file and the certificates.
        """
        ensure_venv(self.venv)
        if not self.keep_state:
            shutil.rmtree(self.store_dir, ignore_errors=True)
        for path in (self.state_dir, self.tmp_dir):
            os.makedirs(path, exist_ok=True)
        if self.port is None:
            self.port = util.free_port(self.host)
        config = {
            'SUSHY_EMULATOR_LISTEN_IP': self.host,
            'SUSHY_EMULATOR_LISTEN_PORT': self.port,
            'SUSHY_EMULATOR_FAKE_DRIVER': True,
            'SUSHY_EMULATOR_FAKE_SYSTEMS': [
                {'uuid': s['uuid'], 'name': s['name'], 'power_state': 'Off',
                 'external_notifier': False, 'nics': [{'mac': s['mac']}]}
                for s in self.systems],
            'SUSHY_EMULATOR_STATE_DIR': self.store_dir,
            'SUSHY_EMULATOR_FEATURE_SET': 'full',
        }
        if self.auth:
            _write(self.auth_file, htpasswd_line(
                self.venv, self.auth[0], self.auth[1],
                self.bcrypt_rounds) + '\n', mode=0o600)
            config['SUSHY_EMULATOR_AUTH_FILE'] = self.auth_file
        if self.tls:
            self.ca_file, self.cert_file, self.key_file = make_certificates(
                self.state_dir, hosts=(self.host, 'localhost'))
            config['SUSHY_EMULATOR_SSL_CERT'] = self.cert_file
            config['SUSHY_EMULATOR_SSL_KEY'] = self.key_file
        _write(self.conf_path, ''.join(
            '%s = %r\n' % item for item in sorted(config.items())),
            mode=0o600)
        _write(self.launcher_path, LAUNCHER)
        _write(self.info_path, json.dumps(self.describe(), indent=2),
               mode=0o600)
        return self

    # -- running

    def _env(self):
        env = venvs.clean_env()
        # Virtual media images are downloaded into the temporary directory.
        env['TMPDIR'] = self.tmp_dir
        env.pop(POWER_DELAY_ENV, None)
        if self.power_delay is not None:
            env[POWER_DELAY_ENV] = '%d,%d' % self.power_delay
        return env

    def start(self, timeout=60):
        """Set up, start the emulator and wait (bounded) until it lists
        every system.
        """
        self.setup()
        if util.port_open(self.host, self.port):
            raise util.ServiceError('port %d is taken: cannot start the '
                                    'Redfish emulator' % self.port)
        self.process = util.Process(
            self.name,
            [os.path.join(self.venv, 'bin', 'python'), self.launcher_path,
             '--config', self.conf_path],
            self.log_path, pid_path=self.pid_path, env=self._env(),
            cwd=self.state_dir).start()
        util.wait_until(self.answers, timeout,
                        'the Redfish emulator on %s' % self.url,
                        interval=0.2, abort=self._died)
        return self

    def _died(self):
        if self.process and not self.process.running:
            return 'sushy-emulator exited (%s)%s' % (
                self.process.returncode, util._log_hint(self.log_path))
        return None

    def get(self, path, timeout=10):
        """GET ``path`` as a client of this emulator (its credentials and
        CA): ``(status, parsed JSON or None)``.
        """
        request = urllib.request.Request(self.url + path)
        if self.auth:
            token = base64.b64encode(
                ('%s:%s' % self.auth).encode()).decode()
            request.add_header('Authorization', 'Basic ' + token)
        context = (ssl.create_default_context(cafile=self.ca_file)
                   if self.tls else None)
        try:
            with urllib.request.urlopen(request, timeout=timeout,
                                        context=context) as resp:
                return resp.status, json.loads(resp.read() or b'null')
        except urllib.error.HTTPError as exc:
            return exc.code, None

    def answers(self):
        """Whether the emulator lists all its systems."""
        try:
            status, body = self.get(SYSTEMS_PATH, timeout=5)
        except (urllib.error.URLError, OSError, ValueError):
            return False
        return status == 200 and (
            body.get('Members@odata.count', 0) >= len(self.systems))

    def adopt(self):
        """The emulator a previous start left running, if it still runs."""
        self.process = util.Process.adopt(self.name, self.pid_path,
                                          self.log_path,
                                          expect=self.launcher_path)
        return self.process

    def detach(self):
        """Leave the emulator running after this process (the CLI's
        ``redfish-emulator-up``); ``adopt`` finds it again.
        """
        if self.process:
            self.process.release()

    def stop(self, timeout=30):
        """SIGTERM, wait; the exit status (0: a clean stop; None when
        adopted or not running).
        """
        if not self.process:
            return None
        code = self.process.stop(timeout, signum=signal.SIGTERM)
        self.process = None
        return code

    @classmethod
    def load(cls, state_dir, name=NAME):
        """The emulator of a state directory, as its description file has
        it (for ``redfish-emulator-down``), adopted if it runs.
        """
        path = os.path.join(os.path.abspath(state_dir), name + '.json')
        with open(path) as f:
            info = json.load(f)
        auth = ((info['username'], info['password'])
                if info.get('username') else None)
        emulator = cls(state_dir, systems=0, auth=auth,
                       tls=bool(info.get('ca_file')),
                       power_delay=info.get('power_delay'), name=name)
        emulator.systems = info['systems']
        emulator.ca_file = info.get('ca_file')
        emulator.port = int(info['url'].rsplit(':', 1)[1])
        emulator.adopt()
        return emulator


def start(systems=4, auth=None, tls=False, power_delay=None, state_dir=None,
          **kwargs):
    """Start an emulator of ``systems`` fake systems (in ``state_dir``, a
    new temporary directory by default) and wait until it answers; the
    running RedfishEmulator.
    """
    if state_dir is None:
        state_dir = tempfile.mkdtemp(prefix='nova_mini-redfish-')
    return RedfishEmulator(state_dir, systems=systems, auth=auth, tls=tls,
                           power_delay=power_delay, **kwargs).start()
