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

"""Venvs of the OpenStack services deployed from PyPI (Keystone,
Glance): built once under ``${NOVA_MINI_CACHE:-~/.cache/nova_mini}`` and
reused, never the project's venv, whose libraries they would pin. Every
release in them is pinned by ``tools/constraints/<service>.txt`` of the
checkout, so that an upstream release cannot change a fresh machine's
venv; a venv built with other constraints is rebuilt.
"""

import hashlib
import logging
import os
import shutil
import sys

from nova_mini_deploy import util

LOG = logging.getLogger(__name__)


def cache_dir():
    return os.environ.get('NOVA_MINI_CACHE') or os.path.join(
        os.path.expanduser('~'), '.cache', 'nova_mini')


# tools/constraints/ of the checkout this package runs from (the harness
# always does: tools/stack.sh and tools/run-tests.sh install it from
# contrib/nova-mini-deploy/, editable).
CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
CONSTRAINTS_DIR = os.path.join(CHECKOUT, 'tools', 'constraints')


def constraints_file(name):
    """The constraints file of the venv ``name`` (``keystone``,
    ``glance``), or None when this package runs from no checkout.
    """
    path = os.path.join(CONSTRAINTS_DIR, name + '.txt')
    if os.path.exists(path):
        return path
    LOG.warning('no %s: the %s venv is built without constraints',
                path, name)
    return None


def marker_name(requirements, constraints=None):
    """The file that marks a complete venv: named after the first
    requirement (the service and its version) and the digest of the
    constraints file, so that a venv of another version or built with
    other constraints is rebuilt.
    """
    name = '.nova_mini-%s' % requirements[0].replace('==', '-')
    if constraints:
        with open(constraints, 'rb') as f:
            name += '-c%s' % hashlib.sha256(f.read()).hexdigest()[:12]
    return name


def clean_env():
    """The environment without the project venv's marks, so that tools of
    a service's venv find only that venv.
    """
    env = dict(os.environ)
    for name in ('VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME', 'NOTIFY_SOCKET'):
        env.pop(name, None)
    return env


def ensure(path, requirements, executables, timeout=1200,
           constraints=None):
    """Build the venv at ``path`` with ``requirements`` (pip arguments)
    and the pip constraints file ``constraints`` unless a complete one is
    there (its marker_name and ``executables``, names under bin/); return
    ``path``.
    """
    marker = os.path.join(path, marker_name(requirements, constraints))
    needed = [marker] + [os.path.join(path, 'bin', b)
                         for b in tuple(executables) + ('python',)]
    if all(os.path.exists(p) for p in needed):
        return path
    with util.file_lock(path.rstrip('/') + '.lock', timeout=timeout):
        if all(os.path.exists(p) for p in needed):
            return path
        if os.path.exists(path):
            shutil.rmtree(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        log = path.rstrip('/') + '-build.log'
        with open(log, 'w'):
            pass
        LOG.info('building the venv %s (%s; a few minutes, once)',
                 path, ' '.join(requirements))
        # The interpreter behind this one (venv or not) makes the new venv.
        python = getattr(sys, '_base_executable', None) or sys.executable
        env = clean_env()
        pins = ['-c', constraints] if constraints else []
        util.run([python, '-m', 'venv', path], log_path=log, timeout=300,
                 env=env, what='python -m venv %s' % path)
        util.run([os.path.join(path, 'bin', 'python'), '-m', 'pip',
                  'install', '--disable-pip-version-check'] + pins +
                 list(requirements),
                 log_path=log, timeout=timeout, env=env,
                 what='pip install %s' % ' '.join(requirements))
        with open(marker, 'w') as f:
            f.write('\n'.join(requirements) + '\n')
    return path
