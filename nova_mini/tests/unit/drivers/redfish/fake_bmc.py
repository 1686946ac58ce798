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

"""A BMC over HTTP for the redfish driver's unit tests: it answers the
Redfish documents recorded from sushy-tools' emulator (``documents/``,
see its README) and keeps the state the driver's requests change, so that
sushy really speaks HTTP to it.

It models what the tests need of a BMC: the Reset action (the power state
changes ``power_delay`` seconds later, or never when ``power_stuck``), a
PATCH of the system's Boot (kept as sent), InsertMedia/EjectMedia,
HTTP basic authentication and, with ``sessions=True``, a Redfish
SessionService (the emulator has none: its two documents are written
here from the Redfish schema). Every request is recorded; ``fail(...)``
makes the next matching requests answer an error status.

The server runs in a process of its own (:class:`BMCProcess` starts this
file as a script): in the tests' process, the garbage collection of
sushy's dropped clients closed the server's fresh connections. The test
drives it through ``/_bmc/`` requests (no authentication), answered from
:class:`FakeBMC`'s state.
"""

import base64
import copy
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import traceback
import urllib.request

DOCUMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'documents')
SYSTEM = '/redfish/v1/Systems/4d3c1e1e-5f0b-4a8b-9a30-1f0d5b6c7a01'
SYSTEM_1 = '/redfish/v1/Systems/4d3c1e1e-5f0b-4a8b-9a30-1f0d5b6c7a02'
CD = SYSTEM + '/VirtualMedia/Cd'
FLOPPY = SYSTEM + '/VirtualMedia/Floppy'
SESSIONS = '/redfish/v1/SessionService/Sessions'

POWER_AFTER_RESET = {
    'On': 'On', 'ForceOn': 'On', 'ForceOff': 'Off',
    'GracefulShutdown': 'Off', 'ForceRestart': 'On',
    'GracefulRestart': 'On', 'PushPowerButton': None,
}


def load(name):
    with open(os.path.join(DOCUMENTS, name + '.json')) as f:
        return json.load(f)


def _documents(two_systems):
    docs = {}
    for name in sorted(os.listdir(DOCUMENTS)):
        if name.endswith('.json') and name != 'error.json':
            doc = load(name[:-5])
            docs[doc['@odata.id'].rstrip('/') or '/'] = doc
    if two_systems:
        for name in ('systems', 'system-1'):
            doc = load('two-systems/' + name)
            docs[doc['@odata.id']] = doc
    return docs


class Request(object):
    def __init__(self, method, path, body, auth):
        self.method = method
        self.path = path
        self.body = body
        self.auth = auth      # 'basic', 'token' or None

    def as_dict(self):
        return {'method': self.method, 'path': self.path, 'body': self.body,
                'auth': self.auth}

    def __repr__(self):
        return '%s %s %s' % (self.method, self.path, self.body)


CONFIGURABLE = ('power_delay', 'power_stuck', 'refuse_continuous',
                'reset_status')


class FakeBMC(object):
    """The HTTP server; ``address`` is its URL (http://127.0.0.1:PORT)."""

    def __init__(self, username='admin', password='p4ss-w0rd!secret',
                 sessions=False, two_systems=False, power_delay=0.0):
        self.username = username
        self.password = password
        self.sessions = sessions
        self.power_delay = power_delay
        self.power_stuck = False
        self.refuse_continuous = False
        self.reset_status = None     # answer every Reset with this status
        self.docs = _documents(two_systems)
        if sessions:
            self.docs['/redfish/v1']['SessionService'] = {
                '@odata.id': '/redfish/v1/SessionService'}
            self.docs['/redfish/v1']['Links'] = {
                'Sessions': {'@odata.id': SESSIONS}}
            self.docs['/redfish/v1/SessionService'] = {
                '@odata.id': '/redfish/v1/SessionService',
                '@odata.type': '#SessionService.v1_1_8.SessionService',
                'Id': 'SessionService', 'Name': 'Session Service',
                'ServiceEnabled': True, 'SessionTimeout': 600,
                'Sessions': {'@odata.id': SESSIONS}}
        self.tokens = {}
        self.requests = []
        self.failures = []
        self.pending = {}          # system path -> (apply time, state)
        self.lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer(
            ('127.0.0.1', 0), _handler(self))
        self.server.daemon_threads = True
        self.address = 'http://127.0.0.1:%d' % self.server.server_port
        # Polled every 0.05 s for shutdown (not serve_forever's 0.5 s):
        # stop() comes at the end of every test.
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={'poll_interval': 0.05},
                                       daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def fail(self, status, times=1, method=None, path=None):
        """Answer ``status`` to the next ``times`` requests matching."""
        self.failures.append([status, times, method, path])

    def set_power(self, state, path=SYSTEM):
        self.docs[path]['PowerState'] = state
        self.pending.pop(path, None)

    def doc(self, path):
        self._apply_pending()
        return copy.deepcopy(self.docs[path])

    def remove(self, path):
        """Forget ``path`` and the links to it."""
        del self.docs[path]
        for doc in self.docs.values():
            members = doc.get('Members')
            if members and {'@odata.id': path} in members:
                members.remove({'@odata.id': path})
                doc['Members@odata.count'] = len(members)

    def update(self, path, fields):
        self.docs[path].update(fields)

    def configure(self, attrs):
        for name, value in attrs.items():
            if name not in CONFIGURABLE:
                raise AttributeError(name)
            setattr(self, name, value)

    def control(self, body):
        """A /_bmc/ request of the test: {'call': name, 'args': [...]}."""
        name = body['call']
        if name == 'requests':
            return [r.as_dict() for r in self.requests]
        if name not in ('fail', 'set_power', 'doc', 'remove', 'update',
                        'configure'):
            raise AttributeError(name)
        return getattr(self, name)(*body.get('args', ()))

    # -- called by the handler, under self.lock ---------------------------

    def _apply_pending(self):
        now = time.monotonic()
        for path, (when, state) in list(self.pending.items()):
            if now >= when:
                self.docs[path]['PowerState'] = state
                del self.pending[path]

    def _failure(self, method, path):
        for failure in self.failures:
            status, times, f_method, f_path = failure
            if ((f_method is None or f_method == method)
                    and (f_path is None or path.startswith(f_path))):
                failure[1] -= 1
                if failure[1] <= 0:
                    self.failures.remove(failure)
                return status
        return None

    def _auth(self, headers):
        token = headers.get('X-Auth-Token')
        if token:
            return 'token' if token in self.tokens else None
        value = headers.get('Authorization') or ''
        if value.startswith('Basic '):
            user, _sep, pw = base64.b64decode(
                value[6:]).decode().partition(':')
            if (user, pw) == (self.username, self.password):
                return 'basic'
        return None

    def handle(self, method, path, headers, body):
        """(status, document or None, extra headers)"""
        path = path.split('?')[0].rstrip('/') or '/'
        if path == '/_bmc':
            return 200, {'result': self.control(body)}, {}
        auth = self._auth(headers)
        self.requests.append(Request(method, path, body, auth))
        status = self._failure(method, path)
        if status:
            return status, load('error'), {}
        if path.startswith(SESSIONS) and not self.sessions:
            return 404, load('error'), {}
        if path == SESSIONS and method == 'POST':
            if (body.get('UserName'), body.get('Password')) != (
                    self.username, self.password):
                return 401, load('error'), {}
            token = 'token-%d' % (len(self.tokens) + 1)
            session = '%s/%d' % (SESSIONS, len(self.tokens) + 1)
            self.tokens[token] = session
            return 201, {'@odata.id': session, 'Id': token[6:],
                         'UserName': self.username}, {
                'X-Auth-Token': token, 'Location': session}
        if path != '/redfish/v1' and auth is None:
            return 401, load('error'), {}
        self._apply_pending()
        if method == 'GET':
            if path == SESSIONS:
                return 200, {'@odata.id': SESSIONS, 'Members': [
                    {'@odata.id': s} for s in self.tokens.values()]}, {}
            if path in self.docs:
                return 200, self.docs[path], {}
            return 404, load('error'), {}
        if method == 'DELETE' and path.startswith(SESSIONS + '/'):
            return 204, None, {}
        if (method == 'PATCH' and path in self.docs
                and set(body) == {'IndicatorLED'}):
            self.docs[path]['IndicatorLED'] = body['IndicatorLED']
            return 204, None, {}
        if method == 'PATCH' and path in self.docs and 'Boot' in body:
            boot = body['Boot']
            if (self.refuse_continuous
                    and boot.get('BootSourceOverrideEnabled') ==
                    'Continuous'):
                return 400, load('error'), {}
            self.docs[path]['Boot'].update(boot)
            return 204, None, {}
        if method == 'POST' and path.endswith(
                '/Actions/ComputerSystem.Reset'):
            if self.reset_status:
                return self.reset_status, load('error'), {}
            system = path[:-len('/Actions/ComputerSystem.Reset')]
            state = POWER_AFTER_RESET.get(body.get('ResetType'))
            if state is None:
                return 400, load('error'), {}
            if not self.power_stuck:
                if body['ResetType'] in ('ForceRestart', 'GracefulRestart'):
                    self.docs[system]['PowerState'] = 'Off'
                self.pending[system] = (
                    time.monotonic() + self.power_delay, state)
            return 204, None, {}
        if method == 'POST' and '/Actions/VirtualMedia.' in path:
            media, _sep, action = path.partition('/Actions/VirtualMedia.')
            doc = self.docs[media]
            if action == 'InsertMedia':
                # Inserted and WriteProtected default to true (Redfish).
                doc.update(Image=body['Image'],
                           Inserted=body.get('Inserted', True),
                           WriteProtected=body.get('WriteProtected', True),
                           ImageName=body['Image'].rsplit('/', 1)[-1])
            else:
                doc.update(Image='', ImageName='', Inserted=False)
            return 204, None, {}
        return 405, load('error'), {}


def _handler(bmc):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'

        def log_message(self, *args):
            pass

        def _answer(self):
            length = int(self.headers.get('Content-Length') or 0)
            raw = self.rfile.read(length) if length else b''
            body = json.loads(raw) if raw else {}
            with bmc.lock:
                try:
                    status, doc, extra = bmc.handle(self.command, self.path,
                                                    self.headers, body)
                except Exception:
                    traceback.print_exc()
                    status, doc, extra = 500, load('error'), {}
                data = json.dumps(doc).encode() if doc is not None else b''
            self.send_response(status)
            if self.close_connection:
                # sushy asks every request "Connection: close": say that
                # the connection closes, as HTTP/1.1 wants, or the client
                # pools it and may send its next request on it while the
                # server closes it (RemoteDisconnected under load; call()
                # then drops the client and logs in again).
                self.send_header('Connection', 'close')
            for name, value in extra.items():
                self.send_header(name, value)
            if data:
                self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = _answer

    return Handler


class BMCProcess(object):
    """A FakeBMC in a process of its own, driven from the tests."""

    def __init__(self, **kwargs):
        self.username = kwargs.get('username', 'admin')
        self.password = kwargs.get('password', 'p4ss-w0rd!secret')
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), json.dumps(kwargs)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address.startswith('http://'):
            self.stop()
            raise RuntimeError('The fake BMC did not start')

    def _call(self, name, *args):
        request = urllib.request.Request(
            self.address + '/_bmc', method='POST',
            data=json.dumps({'call': name, 'args': args}).encode(),
            headers={'Content-Type': 'application/json'})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)['result']

    def __setattr__(self, name, value):
        if name in CONFIGURABLE:
            self._call('configure', {name: value})
        else:
            super().__setattr__(name, value)

    def fail(self, status, times=1, method=None, path=None):
        self._call('fail', status, times, method, path)

    def set_power(self, state, path=SYSTEM):
        self._call('set_power', state, path)

    def doc(self, path):
        return self._call('doc', path)

    def remove(self, path):
        self._call('remove', path)

    def update(self, path, **fields):
        self._call('update', path, fields)

    @property
    def requests(self):
        return [Request(**r) for r in self._call('requests')]

    def actions(self, method=None):
        """The recorded requests other than GET (or of ``method``)."""
        return [r for r in self.requests
                if (r.method == method if method else r.method != 'GET')]

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()


def main(argv):
    bmc = FakeBMC(**json.loads(argv[1])).start()
    print(bmc.address, flush=True)
    sys.stdin.read()        # until the test closes it
    bmc.stop()


if __name__ == '__main__':
    main(sys.argv)
