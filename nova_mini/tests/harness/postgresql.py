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
"""

import glob
import os
import shutil
import subprocess
import uuid

from nova_mini.tests.harness import util

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
        raise util.HarnessError(
            'PostgreSQL does not answer on %s:%d and is not installed '
            '(apt-get install postgresql)' % (HOST, PORT))
    for version in versions:
        subprocess.run([ctl, '--skip-systemctl-redirect', version, 'main',
                        'start'], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60)
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
    # Stock Debian: only the postgres system user gets in (peer auth).
    runuser = shutil.which('runuser')
    if os.geteuid() != 0 or not runuser:
        raise util.HarnessError(
            'cannot log in to PostgreSQL on %s:%d; create a role %s with '
            'password %s and CREATEDB' % (HOST, PORT, ROLE, PASSWORD))
    sql = ("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname "
           "= '{0}') THEN CREATE ROLE {0} LOGIN CREATEDB PASSWORD '{1}'; "
           "ELSE ALTER ROLE {0} LOGIN CREATEDB PASSWORD '{1}'; END IF; "
           "END $$;").format(ROLE, PASSWORD)
    util.run([runuser, '-u', 'postgres', '--', 'psql', '-v',
              'ON_ERROR_STOP=1', '-p', str(PORT), '-c', sql],
             timeout=60, what='create PostgreSQL role %s' % ROLE)
    url = 'postgresql+psycopg2://%s:%s@%s:%d/postgres' % (ROLE, PASSWORD,
                                                          HOST, PORT)
    if not _can_login(url):
        raise util.HarnessError('PostgreSQL role %s still cannot log in'
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
