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
reused, never the project's venv, whose libraries they would pin.
"""

import logging
import os
import shutil
import sys

from nova_mini.deploy import util

LOG = logging.getLogger(__name__)


def cache_dir():
    return os.environ.get('NOVA_MINI_CACHE') or os.path.join(
        os.path.expanduser('~'), '.cache', 'nova_mini')


def clean_env():
    """The environment without the project venv's marks, so that tools of
    a service's venv find only that venv.
    """
    env = dict(os.environ)
    for name in ('VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME', 'NOTIFY_SOCKET'):
        env.pop(name, None)
    return env


def ensure(path, requirements, executables, timeout=1200):
    """Build the venv at ``path`` with ``requirements`` (pip arguments)
    unless a complete one is there; return ``path``.

    A marker file named after the first requirement (the service and its
    version) makes a venv of another version be rebuilt; ``executables``
    (names under bin/) must exist.
    """
    marker = os.path.join(path, '.nova_mini-%s'
                          % requirements[0].replace('==', '-'))
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
        util.run([python, '-m', 'venv', path], log_path=log, timeout=300,
                 env=env, what='python -m venv %s' % path)
        util.run([os.path.join(path, 'bin', 'python'), '-m', 'pip',
                  'install', '--disable-pip-version-check'] +
                 list(requirements),
                 log_path=log, timeout=timeout, env=env,
                 what='pip install %s' % ' '.join(requirements))
        with open(marker, 'w') as f:
            f.write('\n'.join(requirements) + '\n')
    return path
