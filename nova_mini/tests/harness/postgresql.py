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

"""PostgreSQL for tests of the database layer: the server on
127.0.0.1:5432 (started with pg_ctlcluster if installed but stopped), a
login that may create databases, and throwaway databases.

On this project's machines PostgreSQL trusts local TCP logins; on a stock
Debian install it does not, so a ``nova_mini`` role with a password is
created through the ``postgres`` system user (peer authentication).

``PrivateCluster`` is a cluster of a test's own (``initdb`` and
``pg_ctl`` in a temporary directory, on a free port), for tests that stop
and start the database server without disturbing anyone else.
"""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid

from nova_mini_deploy import util

HOST = util.LOCALHOST
PORT = int(os.environ.get('NOVA_MINI_PG_PORT', '5432'))
ROLE = 'nova_mini'
PASSWORD = 'nova_mini'


def _connect(url):
    import psycopg2
    dsn = url.replace('postgresql+psycopg2://', 'postgresql://')
    conn = psycopg2.connect(dsn, connect_timeout=5)
    conn.autocommit = True
    return conn


def _can_login(url):
    try:
        _connect(url).close()
        return True
    except Exception:
        return False


def ensure_server(timeout=60):
    """Make sure a PostgreSQL server listens on 127.0.0.1:PORT."""
    if util.port_open(HOST, PORT):
        return
    ctl = shutil.which('pg_ctlcluster')
    versions = sorted(os.path.basename(p)
                      for p in glob.glob('/etc/postgresql/*'))
    if not ctl or not versions:
        raise util.ServiceError(
            'PostgreSQL does not answer on %s:%d and is not installed '
            '(apt-get install postgresql)' % (HOST, PORT))
    for version in versions:
        # (as root: the cluster's owner, postgres, runs it)
        subprocess.run(util.as_root([ctl, '--skip-systemctl-redirect',
                                     version, 'main', 'start']),
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=60)
    util.wait_until(lambda: util.port_open(HOST, PORT), timeout,
                    'PostgreSQL on %s:%d' % (HOST, PORT))


def admin_url():
    """A URL of a login allowed to create databases (SQLAlchemy form)."""
    ensure_server()
    for url in ('postgresql+psycopg2://postgres@%s:%d/postgres'
                % (HOST, PORT),
                'postgresql+psycopg2://%s:%s@%s:%d/postgres'
                % (ROLE, PASSWORD, HOST, PORT)):
        if _can_login(url):
            return url
    # Stock Debian: only the postgres system user gets in (peer auth);
    # root (or sudo) runs psql as that user.
    runuser = shutil.which('runuser')
    if not runuser:
        raise util.ServiceError(
            'cannot log in to PostgreSQL on %s:%d; create a role %s with '
            'password %s and CREATEDB' % (HOST, PORT, ROLE, PASSWORD))
    sql = ("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname "
           "= '{0}') THEN CREATE ROLE {0} LOGIN CREATEDB PASSWORD '{1}'; "
           "ELSE ALTER ROLE {0} LOGIN CREATEDB PASSWORD '{1}'; END IF; "
           "END $$;").format(ROLE, PASSWORD)
    util.run(util.as_root([runuser, '-u', 'postgres', '--', 'psql', '-v',
                           'ON_ERROR_STOP=1', '-p', str(PORT), '-c', sql]),
             timeout=60, what='create PostgreSQL role %s' % ROLE)
    url = 'postgresql+psycopg2://%s:%s@%s:%d/postgres' % (ROLE, PASSWORD,
                                                          HOST, PORT)
    if not _can_login(url):
        raise util.ServiceError('PostgreSQL role %s still cannot log in'
                                % ROLE)
    return url


class TemporaryDatabase(object):
    """A fresh database, dropped by ``drop()``; ``url`` is for SQLAlchemy."""

    def __init__(self, prefix='nova_mini_test'):
        self._admin = admin_url()
        self.name = '%s_%s' % (prefix, uuid.uuid4().hex[:10])
        conn = _connect(self._admin)
        try:
            with conn.cursor() as cur:
                cur.execute('CREATE DATABASE %s' % self.name)
        finally:
            conn.close()
        self.url = self._admin.rsplit('/', 1)[0] + '/' + self.name

    def drop(self):
        conn = _connect(self._admin)
        try:
            with conn.cursor() as cur:
                cur.execute('DROP DATABASE IF EXISTS %s WITH (FORCE)'
                            % self.name)
        finally:
            conn.close()


def _server_bin_dir():
    """The directory of initdb and pg_ctl (Debian keeps them out of
    PATH, under /usr/lib/postgresql/VERSION/bin); the newest version.
    """
    found = shutil.which('initdb') and shutil.which('pg_ctl')
    if found:
        return os.path.dirname(found)
    dirs = sorted(glob.glob('/usr/lib/postgresql/*/bin'),
                  key=lambda d: int(d.split('/')[-2].split('.')[0]))
    for path in reversed(dirs):
        if os.access(os.path.join(path, 'initdb'), os.X_OK):
            return path
    raise util.ServiceError('initdb and pg_ctl are not installed '
                            '(apt-get install postgresql)')


class PrivateCluster(object):
    """A PostgreSQL cluster of its own: made by ``initdb`` in a temporary
    directory, listening on 127.0.0.1 on a free port (its Unix socket in
    that directory), trusting local logins of its superuser ``postgres``.

    initdb and the server refuse to run as root: as root the cluster is
    made and run by the ``postgres`` system user (``runuser``), owner of
    the directory. ``stop()`` and ``start()`` stop and start the server
    with its data kept; ``destroy()`` stops it and removes everything.

    :param port: default: a free port.
    """

    SUPERUSER = 'postgres'

    def __init__(self, port=None):
        self.bin_dir = _server_bin_dir()
        self.port = port or util.free_port()
        self.base_dir = tempfile.mkdtemp(prefix='nova-mini-pg-')
        self.data_dir = os.path.join(self.base_dir, 'data')
        self.log_path = os.path.join(self.base_dir, 'server.log')
        self._user = None
        if os.geteuid() == 0:
            self._user = 'postgres'
            entry = pwd.getpwnam(self._user)
            os.chown(self.base_dir, entry.pw_uid, entry.pw_gid)
        self._run('initdb', '-D', self.data_dir, '-U', self.SUPERUSER,
                  '--auth=trust', '--encoding=UTF8', '--no-sync',
                  what='initdb %s' % self.data_dir)
        self._configure()

    def _run(self, program, *args, what=None, timeout=120):
        argv = [os.path.join(self.bin_dir, program)] + list(args)
        if self._user:
            argv = [shutil.which('runuser') or 'runuser', '-u', self._user,
                    '--'] + argv
        return util.run(argv, timeout=timeout, what=what or program,
                        cwd=self.base_dir)

    def _configure(self):
        with open(os.path.join(self.data_dir, 'postgresql.conf'), 'a') as f:
            f.write("\n# nova_mini test cluster\n"
                    "listen_addresses = '%s'\n"
                    "port = %d\n"
                    "unix_socket_directories = '%s'\n"
                    "max_connections = 200\n"
                    "fsync = off\n"
                    "synchronous_commit = off\n"
                    "full_page_writes = off\n"
                    % (HOST, self.port, self.base_dir))

    @property
    def admin_url(self):
        """The superuser's URL of the ``postgres`` database (SQLAlchemy)."""
        return self.url('postgres')

    def url(self, database):
        """The SQLAlchemy URL of ``database`` on this cluster."""
        return 'postgresql+psycopg2://%s@%s:%d/%s' % (
            self.SUPERUSER, HOST, self.port, database)

    @property
    def running(self):
        return util.port_open(HOST, self.port)

    def start(self, timeout=60):
        """Start the server (its data kept) and wait until it accepts
        logins.
        """
        self._run('pg_ctl', '-D', self.data_dir, '-l', self.log_path,
                  '-w', '-t', str(int(timeout)), 'start',
                  what='pg_ctl start (port %d)' % self.port,
                  timeout=timeout + 10)
        util.wait_until(lambda: _can_login(self.admin_url), timeout,
                        'PostgreSQL on port %d' % self.port)
        return self

    def stop(self, mode='fast', timeout=60):
        """Stop the server: ``mode`` is pg_ctl's (``smart``, ``fast``:
        sessions are ended at once, ``immediate``: no clean shut-down).
        """
        self._run('pg_ctl', '-D', self.data_dir, '-m', mode, '-w', '-t',
                  str(int(timeout)), 'stop',
                  what='pg_ctl stop (port %d)' % self.port,
                  timeout=timeout + 10)

    def create_database(self, name):
        """Create ``name``; its SQLAlchemy URL."""
        conn = _connect(self.admin_url)
        try:
            with conn.cursor() as cur:
                cur.execute('CREATE DATABASE %s' % name)
        finally:
            conn.close()
        return self.url(name)

    def destroy(self):
        """Stop the server if it runs and remove its directory."""
        try:
            if os.path.exists(os.path.join(self.data_dir,
                                           'postmaster.pid')):
                self.stop(mode='immediate')
        finally:
            shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.destroy()
            raise

    def __exit__(self, *exc):
        self.destroy()
