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

"""Glance from PyPI, in its own venv, served by gunicorn.

The venv (``glance==33.0.0`` and gunicorn) is built once under
``${NOVA_MINI_CACHE:-~/.cache/nova_mini}/glance-venv`` (nova_mini_deploy.venvs).
Each run gets its own state directory: glance-api.conf and its paste
file, a SQLite database, the file store (``images/``), the staging
directory and the log. Tokens are checked by keystonemiddleware against
the stack's Keystone, as the user ``glance`` of the ``service`` project;
without a Keystone (no ``auth_url``: functional tests) Glance runs its
pipeline without authentication under its rules of before the
project-scoped roles, for images that are not public.

``ensure_images`` uploads the images every stack has: a few KB of bytes
made here (nothing is downloaded), once as a cirros-like image and once
with properties that take part in scheduling (a required trait and an
architecture).
"""

import hashlib
import logging
import os
import shutil
import urllib.error
import urllib.request

from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session

from nova_mini_deploy import service
from nova_mini_deploy import util
from nova_mini_deploy import venvs

LOG = logging.getLogger(__name__)

VERSION = '33.0.0'

# The images of every stack: name -> properties. Each gets a fixed id
# (Glance takes one on create), so that tests can name it without asking.
CIRROS = 'cirros-0.6.3-x86_64-disk'
CIRROS_ID = 'c1c1c1c1-0603-4a86-9e64-000000000001'
TRAITS_IMAGE = 'cirros-0.6.3-x86_64-gpu'
TRAITS_IMAGE_ID = 'c1c1c1c1-0603-4a86-9e64-000000000002'
IMAGE_TRAIT = 'CUSTOM_NOVA_MINI_GPU'
IMAGES = {
    CIRROS: {'id': CIRROS_ID},
    TRAITS_IMAGE: {'id': TRAITS_IMAGE_ID,
                   'trait:%s' % IMAGE_TRAIT: 'required',
                   'hw_architecture': 'x86_64'},
}
IMAGE_SIZE = 4096

# glance.wsgi.api builds the app from OS_GLANCE_CONFIG_DIR/glance-api.conf
# and parses no command line of its own.
WSGI_MODULE = 'glance.wsgi.api:application'

CONF_TEMPLATE = """[DEFAULT]
debug = false
use_stderr = true
node_staging_uri = file://{state}/staging
image_cache_dir = {state}/cache
enabled_import_methods = []
show_multiple_locations = false

[database]
connection = sqlite:///{state}/glance.sqlite

[glance_store]
stores = file
default_store = file
filesystem_store_datadir = {state}/images

[paste_deploy]
flavor = {flavor}
config_file = {state}/glance-api-paste.ini

[oslo_concurrency]
lock_path = {state}/locks
"""

# Glance's unauthenticated context has no roles: its rules of before
# the project-scoped roles (Wallaby) let it create and read images other
# than public ones.
NOAUTH_TEMPLATE = """
[oslo_policy]
enforce_new_defaults = false
enforce_scope = false
"""

KEYSTONE_TEMPLATE = """
[keystone_authtoken]
www_authenticate_uri = {auth_url}
auth_url = {auth_url}
auth_type = password
username = glance
password = {password}
project_name = service
user_domain_name = Default
project_domain_name = Default
"""


def venv_dir():
    return (os.environ.get('NOVA_MINI_GLANCE_VENV')
            or os.path.join(venvs.cache_dir(), 'glance-venv'))


def ensure_venv(path=None, timeout=1200):
    """Build the Glance venv unless a complete one is there; its path."""
    return venvs.ensure(path or venv_dir(),
                        ['glance==%s' % VERSION, 'gunicorn'],
                        ('glance-manage', 'gunicorn'), timeout=timeout,
                        constraints=venvs.constraints_file('glance'))


def image_bytes(name):
    """The image file of ``name``: IMAGE_SIZE bytes derived from it."""
    seed = name.encode()
    chunks = []
    counter = 0
    while sum(len(c) for c in chunks) < IMAGE_SIZE:
        chunks.append(hashlib.sha256(seed + b'%d' % counter).digest())
        counter += 1
    return b''.join(chunks)[:IMAGE_SIZE]


class Glance(service.GunicornService):
    """One Glance for one run (or one stack.sh state directory)."""

    name = 'glance'
    title = 'Glance'
    wsgi_app = WSGI_MODULE

    def __init__(self, state_dir, port, auth_url=None, password=None,
                 venv=None, host=util.LOCALHOST, workers=2):
        super(Glance, self).__init__(state_dir, port, venv or venv_dir(),
                                     host=host, workers=workers)
        self.auth_url = auth_url
        self.password = password
        self.conf_path = os.path.join(self.state_dir, 'glance-api.conf')
        self.setup_log = os.path.join(self.state_dir, 'glance-manage.log')

    def _env(self):
        env = venvs.clean_env()
        env['OS_GLANCE_CONFIG_DIR'] = self.state_dir
        return env

    def setup(self):
        """Write the config, create the database; safe to repeat."""
        ensure_venv(self.venv)
        for sub in ('images', 'staging', 'cache', 'locks'):
            os.makedirs(os.path.join(self.state_dir, sub), exist_ok=True)
        with open(self.conf_path, 'w') as f:
            # Without a Keystone (auth_url None), Glance's pipeline without
            # authentication.
            f.write(CONF_TEMPLATE.format(
                state=self.state_dir,
                flavor='keystone' if self.auth_url else ''))
            if self.auth_url:
                f.write(KEYSTONE_TEMPLATE.format(auth_url=self.auth_url,
                                                 password=self.password))
            else:
                f.write(NOAUTH_TEMPLATE)
        os.chmod(self.conf_path, 0o600)
        shutil.copyfile(
            os.path.join(self.venv, 'etc', 'glance', 'glance-api-paste.ini'),
            os.path.join(self.state_dir, 'glance-api-paste.ini'))
        util.run([os.path.join(self.venv, 'bin', 'glance-manage'),
                  '--config-file', self.conf_path, 'db_sync'],
                 log_path=self.setup_log, timeout=300, env=self._env(),
                 what='glance-manage db_sync')
        return self

    def answers(self):
        """Whether Glance serves its version document."""
        try:
            with urllib.request.urlopen(self.url + '/', timeout=5) as resp:
                return resp.status in (200, 300)
        except urllib.error.HTTPError as exc:
            # 300 Multiple Choices is the version document.
            return exc.code == 300
        except (urllib.error.URLError, OSError):
            return False

    # -- images, through Glance's REST API as the admin

    def session(self, username, password, project_name):
        auth = v3.Password(auth_url=self.auth_url, username=username,
                           password=password, project_name=project_name,
                           user_domain_id='default',
                           project_domain_id='default')
        return ks_session.Session(auth=auth, timeout=60)

    def ensure_images(self, session, images=None):
        """Upload each image of ``images`` (default IMAGES) unless an
        active one of its name is there; ``{name: id}``.
        """
        ids = {}
        for name, properties in (images or IMAGES).items():
            ids[name] = self.ensure_image(session, name, properties)
        return ids

    def ensure_image(self, session, name, properties=None,
                     visibility='public', data=None):
        """The id of the active image ``name``, uploaded if missing."""
        found = session.get(self.url + '/v2/images',
                            params={'name': name}).json()['images']
        for image in found:
            if image['status'] == 'active':
                return image['id']
            session.delete(self.url + '/v2/images/%s' % image['id'])
        body = dict(properties or {}, name=name, disk_format='raw',
                    container_format='bare', visibility=visibility)
        resp = session.post(self.url + '/v2/images', json=body,
                            raise_exc=False)
        if resp.status_code == 409 and 'id' in body:
            # The id was used before (Glance never gives a deleted image's
            # id again): a new one then.
            body.pop('id')
            resp = session.post(self.url + '/v2/images', json=body)
        elif resp.status_code >= 400:
            raise util.ServiceError('Glance refused image %s: %d %s' % (
                name, resp.status_code, resp.text[:500]))
        image = resp.json()
        session.put(self.url + '/v2/images/%s/file' % image['id'],
                    data=data if data is not None else image_bytes(name),
                    headers={'Content-Type': 'application/octet-stream'})
        LOG.info('Glance: image %s uploaded (%s)', name, image['id'])
        return image['id']

    def create_queued_image(self, session, name):
        """An image with no data yet (status ``queued``); its id."""
        return session.post(self.url + '/v2/images', json={
            'name': name, 'disk_format': 'raw',
            'container_format': 'bare'}).json()['id']
