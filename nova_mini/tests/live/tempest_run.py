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

"""Run Tempest (and its plugins) against the live stack.

Tempest is not a requirement of nova_mini: it lives in a virtualenv of its
own, named by NOVA_MINI_TEMPEST_VENV (``tools/run-tests.sh`` builds one
and names it; there a missing Tempest fails the test) or
``/tmp/tempest-venv`` (``python3 -m venv /tmp/tempest-venv &&
/tmp/tempest-venv/bin/pip install tempest==47.0.0``); without either the
tests using it are skipped. A plugin (ironic-tempest-plugin) is installed
into the same virtualenv.

``Tempest(stack, tmp_path)`` makes a workspace whose tempest.conf points
at the stack: dynamic credentials made with the stack's Keystone admin,
the services the catalog has (``[service_available]``), the compute
microversion range the API serves. ``run(regex, sections=...)`` adds or
overrides configuration (``{section: {option: value}}``), runs the tests
matching ``regex`` and answers a ``Result``: each test's outcome (``ok``,
``fail``, ``skip``) and skip reason, and a per-module count.

``Result.check(must_pass, allowed_skips, expected_failures)`` is how a
test judges a run: Tempest's exit status, every skip one the test allows
with its reason, every failure one it expects (and each of those
failing), and at least ``must_pass`` tests passed, so that a run that
skips everything or stops half way fails.
"""

import collections
import json
import os
import re
import subprocess
import urllib.request
import uuid

import pytest

from nova_mini.api.compute import versions

VENV = os.environ.get('NOVA_MINI_TEMPEST_VENV', '/tmp/tempest-venv')

# Catalog service type -> [service_available] flag.
_SERVICES = {
    'compute': 'nova',
    'network': 'neutron',
    'image': 'glance',
    'volumev3': 'cinder',
    'block-storage': 'cinder',
    'object-store': 'swift',
    'placement': 'placement',
    'baremetal': 'ironic',
}

# One result line of ``tempest run`` (stestr's subunit-trace):
# ``{0} <test id> [<duration>] ... ok|FAILED|SKIPPED: reason``.
_LINE = re.compile(r'^\{\d+\} (?P<test>.+?)(?: \[[\d.]+s\])? \.\.\. '
                   r'(?P<status>ok|FAILED|SKIPPED(?::\s*(?P<reason>.*))?)$')
# Tempest's attributes after a test id: ``[id-<uuid>,smoke]``.
_ATTRS = re.compile(r'\[[^\]]*\]$')
# A class fixture's result names its class: ``setUpClass (pkg.mod.Class)``.
_FIXTURE = re.compile(r'^(?P<fixture>\w+) \((?P<cls>[\w.]+)\)$')


def venv_or_skip():
    """The Tempest virtualenv's ``tempest`` script; skips (or fails when
    NOVA_MINI_TEMPEST_VENV names a virtualenv without it).
    """
    tempest = os.path.join(VENV, 'bin', 'tempest')
    if not os.path.exists(tempest):
        if 'NOVA_MINI_TEMPEST_VENV' in os.environ:
            pytest.fail('no Tempest in NOVA_MINI_TEMPEST_VENV %s' % VENV)
        pytest.skip('no Tempest in %s (see tempest_run.py)' % VENV)
    return tempest


def _path(test_id):
    """The dotted path of a test id: ``pkg.mod.Class.test``, or
    ``pkg.mod.Class`` for a class fixture's ``setUpClass (pkg.mod.Class)``.
    """
    match = _FIXTURE.match(test_id)
    return match.group('cls') if match else test_id


def names(name, test_id):
    """Whether ``name`` (``Class``, ``Class.test``, ``mod.Class``...:
    whole components of the dotted path) names the test or its class.
    """
    return ('.%s.' % name) in ('.%s.' % _path(test_id))


def module_of(test_id):
    """The module of a test id (``pkg.mod.Class.test`` or a class
    fixture's ``setUpClass (pkg.mod.Class)``).
    """
    name = _path(test_id)
    parts = name.split('.')
    for index, part in enumerate(parts):
        if part[:1].isupper():
            return '.'.join(parts[:index])
    return name


class Result(object):
    """The outcome of one ``tempest run``."""

    def __init__(self, returncode, output):
        self.returncode = returncode
        self.output = output
        self.tests = collections.OrderedDict()
        self.reasons = {}
        for line in output.splitlines():
            match = _LINE.match(line.strip())
            if not match:
                continue
            test = _ATTRS.sub('', match.group('test')).strip()
            status = match.group('status')
            if status == 'ok':
                self.tests[test] = 'ok'
            elif status == 'FAILED':
                self.tests[test] = 'fail'
            else:
                self.tests[test] = 'skip'
                self.reasons[test] = match.group('reason') or ''

    def with_status(self, status):
        return [test for test, got in self.tests.items() if got == status]

    def by_module(self):
        """``{module: {'ok': n, 'fail': n, 'skip': n}}``."""
        counts = collections.OrderedDict()
        for test, status in self.tests.items():
            module = counts.setdefault(module_of(test),
                                       {'ok': 0, 'fail': 0, 'skip': 0})
            module[status] += 1
        return counts

    def summary(self):
        lines = ['%-70s ok %3d  fail %3d  skip %3d'
                 % (module, c['ok'], c['fail'], c['skip'])
                 for module, c in self.by_module().items()]
        for test in self.with_status('fail'):
            lines.append('FAILED %s' % test)
        for test in self.with_status('skip'):
            lines.append('SKIPPED %s: %s' % (test, self.reasons[test]))
        return '\n'.join(lines)

    def problems(self, must_pass, allowed_skips, expected_failures=None):
        """What makes the run other than the one expected (a list of
        lines; empty when it is that run).

        :param must_pass: how many tests must pass, at least.
        :param allowed_skips: ``{name: reason}``: the tests ``name``
            names (see ``names``) may be skipped, with a skip reason that
            contains ``reason``; any other skip is a problem.
        :param expected_failures: ``{name: why}``: the tests that fail by
            design; each must fail, and no other test.
        """
        expected_failures = expected_failures or {}
        problems = []
        for test in self.with_status('skip'):
            reason = self.reasons[test]
            if not any(names(name, test) and allowed in reason
                       for name, allowed in allowed_skips.items()):
                problems.append('skip not allowed: %s: %s' % (test, reason))
        failed = self.with_status('fail')
        for test in failed:
            if not any(names(name, test) for name in expected_failures):
                problems.append('failed: %s' % test)
        for name, why in expected_failures.items():
            if not any(names(name, test) for test in failed):
                problems.append('expected to fail (%s), did not: %s'
                                % (why, name))
        passed = len(self.with_status('ok'))
        if passed < must_pass:
            problems.append('%d tests passed, %d must' % (passed, must_pass))
        # stestr's status: 1 when a test failed, 0 when all passed or
        # skipped; anything else (or 1 without a failure) is a run that
        # did not finish.
        status = 1 if failed else 0
        if self.returncode != status:
            problems.append('tempest run exited %s, not %d'
                            % (self.returncode, status))
        return problems

    def check(self, must_pass, allowed_skips, expected_failures=None):
        """Fail the test unless the run is the one expected (``problems``
        says what is not), with the per-module counts and Tempest's output.
        """
        problems = self.problems(must_pass, allowed_skips, expected_failures)
        if problems:
            lines = problems + ['', self.summary(), '',
                                self.failure_details()]
            pytest.fail('\n'.join(lines), pytrace=False)

    def failure_details(self, limit=20000):
        """The end of the run's output (tracebacks of the failures); all
        of it with ``limit`` None.
        """
        return self.output if limit is None else self.output[-limit:]


def catalog_types(stack):
    """The service types in the admin's catalog."""
    creds = stack.credentials('admin')
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': creds['OS_USERNAME'], 'domain': {'id': 'default'},
            'password': creds['OS_PASSWORD']}}},
        'scope': {'project': {'name': creds['OS_PROJECT_NAME'],
                              'domain': {'id': 'default'}}}}}
    req = urllib.request.Request(
        creds['OS_AUTH_URL'].rstrip('/') + '/auth/tokens',
        data=json.dumps(body).encode(), method='POST',
        headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:
        token = json.loads(resp.read())['token']
    return {service['type'] for service in token.get('catalog', [])}


def _keystone(creds, token, method, path, body=None):
    """A request of Keystone's v3 API with ``token``; its JSON answer."""
    req = urllib.request.Request(
        creds['OS_AUTH_URL'].rstrip('/') + path, method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={'Content-Type': 'application/json',
                 'X-Auth-Token': token})
    with urllib.request.urlopen(req, timeout=30) as resp:
        answer = resp.read()
    return json.loads(answer) if answer else None


def base_sections(stack, workspace):
    """tempest.conf for the stack, as ``{section: {option: value}}``."""
    creds = stack.credentials('admin')
    auth_url = creds['OS_AUTH_URL'].rstrip('/')
    if auth_url.endswith('/v3'):
        auth_url = auth_url[:-3]
    types = catalog_types(stack)
    available = {flag: 'False' for flag in set(_SERVICES.values())}
    for service_type in types:
        if service_type in _SERVICES:
            available[_SERVICES[service_type]] = 'True'
    region = creds['OS_REGION_NAME']
    return {
        'DEFAULT': {'log_dir': str(workspace), 'log_file': 'tempest.log'},
        'oslo_concurrency': {'lock_path': os.path.join(str(workspace),
                                                       'locks')},
        # Tempest makes its own projects and users (primary, alt, admin,
        # readers) with the stack's admin.
        'auth': {'use_dynamic_credentials': 'True',
                 'create_isolated_networks': 'False',
                 'admin_username': creds['OS_USERNAME'],
                 'admin_password': creds['OS_PASSWORD'],
                 'admin_project_name': creds['OS_PROJECT_NAME'],
                 'admin_domain_name': 'Default'},
        'identity': {'uri_v3': auth_url + '/v3', 'auth_version': 'v3',
                     'region': region},
        'identity-feature-enabled': {'api_v2': 'False'},
        'compute': {
            'region': region, 'endpoint_type': 'publicURL',
            'min_microversion': str(versions.COMPUTE_API.min_version),
            'max_microversion': str(versions.COMPUTE_API.max_version)},
        'service_available': available,
        'validation': {'run_validation': 'False'},
    }


def render(sections):
    lines = []
    for section, options in sections.items():
        lines.append('[%s]' % section)
        lines.extend('%s = %s' % (option, value)
                     for option, value in options.items())
        lines.append('')
    return '\n'.join(lines)


class Tempest(object):
    """A Tempest workspace for the live stack (see the module)."""

    def __init__(self, stack, tmp_path):
        self.tempest = venv_or_skip()
        self.stack = stack
        self.home = tmp_path
        # No ``tempest init`` (a process start of seconds, and a sample
        # config nothing reads): ``tempest run --config-file`` writes the
        # workspace's .stestr.conf itself, and stestr makes its repository.
        self.workspace = tmp_path / 'tempest'
        (self.workspace / 'etc').mkdir(parents=True)
        self.sections = base_sections(stack, self.workspace)

    def env(self):
        # A home of its own: Tempest keeps a workspace list in ~/.tempest.
        return dict(os.environ, HOME=str(self.home),
                    PATH=os.path.join(VENV, 'bin') + os.pathsep +
                    os.environ.get('PATH', ''))

    def configure(self, sections=None):
        """Write tempest.conf: the stack's, with ``sections`` merged in
        (option by option); answers the merged sections.
        """
        merged = {name: dict(options)
                  for name, options in self.sections.items()}
        for name, options in (sections or {}).items():
            merged.setdefault(name, {}).update(
                {key: str(value) for key, value in options.items()})
        (self.workspace / 'etc' / 'tempest.conf').write_text(render(merged))
        return merged

    def admin_accounts(self):
        """tempest.conf's options for pre-provisioned credentials instead
        of dynamic ones, in etc/accounts.yaml (JSON, which YAML reads): the
        stack's admin in its project, and a user of this workspace with
        the admin role on the system (``system_admin``; Tempest tells its
        accounts apart by user name and password, so not the admin).

        Tempest's dynamic credentials make and delete a project and users
        (admin and system admin) for each class, about 17 Keystone
        requests, which took three quarters of the bare-metal run (tests
        that use those credentials only, on an API of the admin alone).
        """
        creds = self.stack.credentials('admin')
        domain = creds['OS_USER_DOMAIN_NAME']
        system_user = {'username': 'tempest-system-admin-%s'
                       % uuid.uuid4().hex[:8],
                       'password': uuid.uuid4().hex,
                       'user_domain_name': domain}
        token = self.stack.token('admin')
        user = _keystone(creds, token, 'POST', '/users', {'user': {
            'name': system_user['username'],
            'password': system_user['password'],
            'domain_id': 'default'}})['user']
        role, = _keystone(creds, token, 'GET', '/roles?name=admin')['roles']
        _keystone(creds, token, 'PUT', '/system/users/%s/roles/%s'
                  % (user['id'], role['id']))
        accounts = [
            {'username': creds['OS_USERNAME'],
             'password': creds['OS_PASSWORD'], 'user_domain_name': domain,
             'project_name': creds['OS_PROJECT_NAME'],
             'project_domain_name': creds['OS_PROJECT_DOMAIN_NAME'],
             'roles': ['admin']},
            dict(system_user, system='all', roles=['admin']),
        ]
        path = self.workspace / 'etc' / 'accounts.yaml'
        path.write_text(json.dumps(accounts, indent=1))
        return {'auth': {'use_dynamic_credentials': 'False',
                         'test_accounts_file': str(path)}}

    def project_accounts(self):
        """tempest.conf's options for pre-provisioned credentials of
        project users instead of dynamic ones, in etc/accounts.yaml (JSON):
        the stack's admin in its project, and two projects of this
        workspace, the first with a ``member`` (primary) and a ``reader``
        (project_reader), the second with a ``member`` (alt).

        Tempest gives a class's reader the project of its member, prefers
        for the member the project with the most roles (the first), and an
        alt the first free account but the admin in the file's order: the
        second project's member, listed before the reader.
        """
        creds = self.stack.credentials('admin')
        domain = creds['OS_USER_DOMAIN_NAME']
        token = self.stack.token('admin')
        role_ids = {}
        accounts = [
            {'username': creds['OS_USERNAME'],
             'password': creds['OS_PASSWORD'], 'user_domain_name': domain,
             'project_name': creds['OS_PROJECT_NAME'],
             'project_domain_name': creds['OS_PROJECT_DOMAIN_NAME'],
             'roles': ['admin']}]
        projects = {}
        for project, role in (('primary', 'member'), ('alt', 'member'),
                              ('primary', 'reader')):
            if role not in role_ids:
                role_ids[role], = [found['id'] for found in _keystone(
                    creds, token, 'GET', '/roles?name=%s' % role)['roles']]
            if project not in projects:
                name = 'tempest-%s-%s' % (project, uuid.uuid4().hex[:8])
                projects[project] = _keystone(
                    creds, token, 'POST', '/projects', {'project': {
                        'name': name, 'domain_id': 'default'}})['project']
            user = {'username': '%s-%s' % (projects[project]['name'], role),
                    'password': uuid.uuid4().hex}
            user_id = _keystone(creds, token, 'POST', '/users', {'user': {
                'name': user['username'], 'password': user['password'],
                'domain_id': 'default'}})['user']['id']
            _keystone(creds, token, 'PUT', '/projects/%s/users/%s/roles/%s'
                      % (projects[project]['id'], user_id, role_ids[role]))
            accounts.append(dict(
                user, user_domain_name=domain,
                project_name=projects[project]['name'],
                project_domain_name=creds['OS_PROJECT_DOMAIN_NAME'],
                roles=[role]))
        path = self.workspace / 'etc' / 'accounts.yaml'
        path.write_text(json.dumps(accounts, indent=1))
        return {'auth': {'use_dynamic_credentials': 'False',
                         'test_accounts_file': str(path)}}

    def run(self, regex, sections=None, concurrency=1, timeout=3600):
        """Run the tests matching ``regex``; a Result."""
        self.configure(sections)
        proc = subprocess.run(
            [self.tempest, 'run', '--regex', regex,
             '--concurrency', str(concurrency), '--config-file',
             str(self.workspace / 'etc' / 'tempest.conf')],
            cwd=str(self.workspace), capture_output=True, text=True,
            timeout=timeout, env=self.env())
        return Result(proc.returncode, proc.stdout + proc.stderr)
