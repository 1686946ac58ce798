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

"""Keystone from PyPI, in its own venv, served by gunicorn.

The venv (``keystone==30.0.0`` and gunicorn) is built once under
``${NOVA_MINI_CACHE:-~/.cache/nova_mini}/keystone-venv`` and reused
(nova_mini_deploy.venvs); it is never the project's venv, whose libraries
Keystone would pin. Each run gets its own state directory: keystone.conf,
a SQLite database (in WAL mode), fernet and credential keys, the WSGI
wrapper (which makes Keystone's concurrent writers queue for SQLite's
write lock instead of failing, and keeps its SQLite connections in a
pool) and the log.
"""

import concurrent.futures
import grp
import json
import logging
import os
import pwd
import sqlite3
import urllib.error
import urllib.request

from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session

from nova_mini_deploy import service
from nova_mini_deploy import util
from nova_mini_deploy import venvs

LOG = logging.getLogger(__name__)

VERSION = '30.0.0'
REGION = 'RegionOne'

# keystone.wsgi.api parses sys.argv with oslo.config: gunicorn's own
# arguments would be taken for Keystone's, so reset them first.
#
# Keystone keeps its data in SQLite here, and its gunicorn workers write at
# once under Tempest's dynamic credentials. pysqlite begins a transaction
# "deferred": one that read before it writes fails at once with "database
# is locked" (a 500) when another worker committed meanwhile, whatever the
# busy timeout. The wrapper makes every Keystone transaction begin with
# BEGIN IMMEDIATE (SQLAlchemy's recipe for pysqlite), which takes the write
# lock first and waits for it up to the busy timeout, so writers queue
# instead of failing; WAL keeps readers of other connections going.
WSGI_WRAPPER = """import sys; sys.argv = sys.argv[:1]
import sqlalchemy  # noqa: E402
from sqlalchemy import event  # noqa: E402


@event.listens_for(sqlalchemy.engine.Engine, 'connect')
def _sqlite_connect(dbapi_connection, _record):
    if type(dbapi_connection).__module__.startswith('sqlite3'):
        # The driver must not begin transactions itself: _sqlite_begin does.
        # (WAL is the database file's own mode, set once by the set-up.)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute('PRAGMA busy_timeout = 60000')
        cursor.close()


_create_engine = sqlalchemy.create_engine


def _pooled_sqlite(url, **kwargs):
    # oslo.db gives a SQLite file no pool: each session opened a connection,
    # whose first statement parses Keystone's whole schema again (a third
    # of Keystone's time under Tempest). Keep the connections instead.
    if (str(url).startswith('sqlite')
            and kwargs.get('poolclass') is sqlalchemy.pool.NullPool):
        kwargs['poolclass'] = sqlalchemy.pool.QueuePool
        kwargs['connect_args'] = dict(kwargs.get('connect_args') or {},
                                      check_same_thread=False)
    return _create_engine(url, **kwargs)


sqlalchemy.create_engine = _pooled_sqlite


@event.listens_for(sqlalchemy.engine.Engine, 'begin')
def _sqlite_begin(connection):
    # Runs before oslo.db's own 'begin' listener, which then sees the
    # marker it keeps for the transaction it began and emits no BEGIN.
    if connection.dialect.name == 'sqlite':
        connection.exec_driver_sql('BEGIN IMMEDIATE')
        connection.info['in_transaction'] = True


from keystone.wsgi.api import application  # noqa: E402,F401
"""

CONF_TEMPLATE = """[DEFAULT]
debug = false
use_stderr = true

[database]
connection = sqlite:///{state}/keystone.sqlite

[token]
provider = fernet
expiration = 14400

[fernet_tokens]
key_repository = {state}/fernet-keys

[fernet_receipts]
key_repository = {state}/fernet-keys

[credential]
key_repository = {state}/credential-keys

[cache]
enabled = false

[identity]
password_hash_rounds = {hash_rounds}
"""


def venv_dir():
    return (os.environ.get('NOVA_MINI_KEYSTONE_VENV')
            or os.path.join(venvs.cache_dir(), 'keystone-venv'))


def ensure_venv(path=None, timeout=1200):
    """Build the Keystone venv unless a complete one is there; its path."""
    return venvs.ensure(path or venv_dir(),
                        ['keystone==%s' % VERSION, 'gunicorn'],
                        ('keystone-manage', 'gunicorn'), timeout=timeout,
                        constraints=venvs.constraints_file('keystone'))


class Keystone(service.GunicornService):
    """One Keystone for one run (or one stack.sh state directory)."""

    name = 'keystone'
    title = 'Keystone'
    wsgi_app = 'keystone_wsgi:application'

    def __init__(self, state_dir, port, admin_password, venv=None,
                 host=util.LOCALHOST, workers=2, hash_rounds=12):
        super(Keystone, self).__init__(state_dir, port, venv or venv_dir(),
                                       host=host, workers=workers)
        self.admin_password = admin_password
        # bcrypt rounds: every user created and every token issued pays
        # 2**rounds; tests use the minimum, 4, to stay fast.
        self.hash_rounds = hash_rounds
        self.conf_path = os.path.join(self.state_dir, 'keystone.conf')
        self.setup_log = os.path.join(self.state_dir, 'keystone-manage.log')

    @property
    def auth_url(self):
        return self.url + '/v3'

    def _env(self):
        env = venvs.clean_env()
        env['OS_KEYSTONE_CONFIG_FILES'] = self.conf_path
        return env

    def _manage(self, *args, timeout=300):
        return util.run(
            [os.path.join(self.venv, 'bin', 'keystone-manage'),
             '--config-file', self.conf_path] + list(args),
            log_path=self.setup_log, timeout=timeout, env=self._env(),
            what='keystone-manage %s' % args[0])

    def _write_ahead_log(self):
        """Put the database in WAL mode (kept in the file): readers then
        never wait for a writer.
        """
        connection = sqlite3.connect(os.path.join(self.state_dir,
                                                  'keystone.sqlite'),
                                     timeout=60)
        try:
            mode = connection.execute('PRAGMA journal_mode = WAL').fetchone()
        finally:
            connection.close()
        if mode[0].lower() != 'wal':
            raise util.ServiceError('Keystone\'s SQLite database stayed in '
                                    '%s journal mode' % mode[0])

    def setup(self):
        """Write keystone.conf, create the database and keys, bootstrap the
        admin user and the identity endpoints. Safe to repeat: the steps
        that already ran for this port are skipped.
        """
        ensure_venv(self.venv)
        os.makedirs(self.state_dir, exist_ok=True)
        for sub in ('fernet-keys', 'credential-keys'):
            os.makedirs(os.path.join(self.state_dir, sub), mode=0o700,
                        exist_ok=True)
        with open(self.conf_path, 'w') as f:
            f.write(CONF_TEMPLATE.format(state=self.state_dir,
                                         hash_rounds=self.hash_rounds))
        with open(os.path.join(self.state_dir, 'keystone_wsgi.py'), 'w') as f:
            f.write(WSGI_WRAPPER)
        done = os.path.join(self.state_dir, 'bootstrapped')
        if os.path.exists(done):
            with open(done) as f:
                if f.read().strip() == '%d' % self.port:
                    # A state directory older than the WAL set-up gets it.
                    self._write_ahead_log()
                    return self
        user = pwd.getpwuid(os.getuid()).pw_name
        group = grp.getgrgid(os.getgid()).gr_name
        # The keys need no database: made while db_sync runs.
        keys = [cmd for cmd, sub in (('fernet_setup', 'fernet-keys'),
                                     ('credential_setup', 'credential-keys'))
                if not os.listdir(os.path.join(self.state_dir, sub))]
        with concurrent.futures.ThreadPoolExecutor(len(keys) or 1) as pool:
            made = [pool.submit(self._manage, cmd, '--keystone-user', user,
                                '--keystone-group', group) for cmd in keys]
            self._manage('db_sync')
            self._write_ahead_log()
            for future in made:
                future.result()
        self._manage('bootstrap',
                     '--bootstrap-username', 'admin',
                     # One argument: a password may start with '-'.
                     '--bootstrap-password=%s' % self.admin_password,
                     '--bootstrap-project-name', 'admin',
                     '--bootstrap-role-name', 'admin',
                     '--bootstrap-service-name', 'keystone',
                     '--bootstrap-region-id', REGION,
                     '--bootstrap-admin-url', self.auth_url,
                     '--bootstrap-internal-url', self.auth_url,
                     '--bootstrap-public-url', self.auth_url)
        with open(done, 'w') as f:
            f.write('%d\n' % self.port)
        return self

    def answers(self):
        try:
            with urllib.request.urlopen(self.auth_url, timeout=5) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError):
            return False

    # -- resources, through Keystone's REST API

    def admin_client(self):
        return IdentityAdmin(self.auth_url, 'admin', self.admin_password,
                             'admin')


class IdentityAdmin(object):
    """Just enough of the identity v3 API to create what the tests need;
    every ``ensure_*`` is idempotent.
    """

    def __init__(self, auth_url, username, password, project_name):
        self.base = auth_url.rstrip('/')
        auth = v3.Password(auth_url=auth_url, username=username,
                           password=password, project_name=project_name,
                           user_domain_id='default',
                           project_domain_id='default')
        self.session = ks_session.Session(auth=auth, timeout=30)

    def _request(self, method, path, body=None, **params):
        kwargs = {'params': params} if params else {}
        if body is not None:
            kwargs['json'] = body
        resp = self.session.request(self.base + path, method, **kwargs)
        return resp.json() if resp.content else None

    def _find(self, collection, **filters):
        items = self._request('GET', '/' + collection, **filters)[collection]
        return items[0] if items else None

    def ensure_project(self, name, description=''):
        project = self._find('projects', name=name, domain_id='default')
        if project is None:
            project = self._request('POST', '/projects', {'project': {
                'name': name, 'domain_id': 'default',
                'description': description}})['project']
        return project['id']

    def ensure_user(self, name, password, project_id):
        user = self._find('users', name=name, domain_id='default')
        body = {'user': {'name': name, 'password': password,
                         'domain_id': 'default',
                         'default_project_id': project_id}}
        if user is None:
            user = self._request('POST', '/users', body)['user']
        else:
            self._request('PATCH', '/users/%s' % user['id'], body)
        return user['id']

    def ensure_role(self, name):
        role = self._find('roles', name=name)
        if role is None:
            role = self._request('POST', '/roles',
                                 {'role': {'name': name}})['role']
        return role['id']

    def grant(self, project_id, user_id, role_id):
        self._request('PUT', '/projects/%s/users/%s/roles/%s'
                      % (project_id, user_id, role_id))

    def ensure_service(self, service_type, name, description=''):
        service = self._find('services', type=service_type)
        if service is None:
            service = self._request('POST', '/services', {'service': {
                'type': service_type, 'name': name,
                'description': description, 'enabled': True}})['service']
        return service['id']

    def ensure_endpoint(self, service_id, interface, url, region=REGION):
        self.ensure_endpoints(service_id, url, [interface], region)

    def ensure_endpoints(self, service_id, url,
                         interfaces=('public', 'internal', 'admin'),
                         region=REGION):
        """The service's endpoints of ``interfaces`` at ``url`` (its
        endpoints listed once).
        """
        found = {}
        for endpoint in self._request('GET', '/endpoints',
                                      service_id=service_id)['endpoints']:
            found.setdefault(endpoint['interface'], endpoint)
        for interface in interfaces:
            endpoint = found.get(interface)
            body = {'endpoint': {'service_id': service_id,
                                 'interface': interface, 'url': url,
                                 'region_id': region, 'enabled': True}}
            if endpoint is None:
                self._request('POST', '/endpoints', body)
            elif endpoint['url'] != url:
                self._request('PATCH', '/endpoints/%s' % endpoint['id'],
                              body)

    def token(self):
        return self.session.get_token()


def issue_token(auth_url, username, password, project_name):
    """A project-scoped token for a user of the Default domain (plain REST,
    as a client would do it).
    """
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': username, 'domain': {'id': 'default'},
            'password': password}}},
        'scope': {'project': {'name': project_name,
                              'domain': {'id': 'default'}}}}}
    req = urllib.request.Request(
        auth_url.rstrip('/') + '/auth/tokens',
        data=json.dumps(body).encode(), method='POST',
        headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.headers['X-Subject-Token']
