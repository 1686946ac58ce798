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

"""nova_mini as a new user installs it: a wheel built from this tree's
files, installed into a fresh venv outside the tree with
requirements.txt and nothing else (but the wheel of the sample
vendordata service, a distribution of its own that requires nova_mini),
works.

The nova_mini wheel holds the runtime only: neither the installer
(contrib/nova-mini-deploy) nor the sample vendordata service
(contrib/sample-vendordata-service). In the venv, with the working
directory outside the tree: every entry point declared in the two
setup.cfg files is installed and loads, every module of the two
packages imports, each console and WSGI script answers ``--help``, and
``nova-mini-api`` on SQLite (``noauth2``, the schema made by
``nova-mini-manage db sync``) answers ``GET /compute/`` and stores a
flavor. A runtime dependency found only in test-requirements.txt (as
cryptography once was) fails here.

The wheel is built from a copy of the tree's files (committed or not, the
ignored ones aside) in a git repository of its own: pbr lists package
data from git, and nothing is written into the tree. The requirements'
wheels are downloaded once per content of requirements.txt into
``$NOVA_MINI_CACHE/wheelhouse`` (nova_mini_deploy.venvs.cache_dir) and
installed from there without an index. The wheels are built by the
setuptools, wheel and pbr that tools/constraints/build.txt admits.

Network: building a wheel needs PyPI (pip fetches the build backend, as a
new user's pip does), and so does the first run for a requirements.txt
(the download of its wheels); the error of either step says so.
"""

import configparser
import email.parser
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile

from packaging import requirements
import pytest

from nova_mini.tests.fixtures import processes
from nova_mini_deploy import util
from nova_mini_deploy import venvs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
REQUIREMENTS = os.path.join(REPO, 'requirements.txt')
BUILD_CONSTRAINTS = os.path.join(REPO, 'tools', 'constraints', 'build.txt')
SCRIPT_GROUPS = ('console_scripts', 'wsgi_scripts')
# The sample vendordata service: its directory, distribution and package.
SAMPLE = 'contrib/sample-vendordata-service'
DISTRIBUTIONS = {'nova_mini': ('.', 'nova_mini'),
                 'nova-mini-vendordata-sample': (
                     SAMPLE, 'nova_mini_vendordata_sample')}

# The first test sets up the venv: the wheel, a minute or two of pip, and
# on a machine's first run the download of the requirements' wheels.
pytestmark = pytest.mark.timeout(900)


def declared_entry_points(directory='.'):
    """The [entry_points] of ``directory``'s setup.cfg:
    {group: {name: 'module:attr'}}.
    """
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(os.path.join(REPO, directory, 'setup.cfg'))
    declared = {}
    for group, text in parser['entry_points'].items():
        for line in text.strip().splitlines():
            name, value = line.split('=', 1)
            declared.setdefault(group, {})[name.strip()] = value.strip()
    return declared


SCRIPTS = sorted(name for directory, _ in DISTRIBUTIONS.values()
                 for group in SCRIPT_GROUPS
                 for name in declared_entry_points(directory)[group])


def _run(argv, log, timeout=600, env=None, **kwargs):
    return util.run(argv, log_path=str(log), timeout=timeout,
                    env=env or venvs.clean_env(), **kwargs)


def _build_env():
    """The environment of ``pip wheel``: the build backend that pip
    installs in its isolated build environment is constrained (pip hands
    PIP_CONSTRAINT on to that install, not its ``-c``).
    """
    return dict(venvs.clean_env(), PIP_CONSTRAINT=BUILD_CONSTRAINTS)


def _snapshot(dest, log):
    """The tree's files (``git ls-files``: tracked and new, not ignored)
    in ``dest``, committed to a git repository of its own.
    """
    files = subprocess.run(
        ['git', 'ls-files', '-z', '--cached', '--others',
         '--exclude-standard'], cwd=REPO, check=True,
        capture_output=True).stdout.decode().split('\0')
    for name in filter(None, files):
        source = os.path.join(REPO, name)
        if os.path.lexists(source):     # not a tracked file just deleted
            os.makedirs(os.path.join(dest, os.path.dirname(name)),
                        exist_ok=True)
            shutil.copy2(source, os.path.join(dest, name),
                         follow_symlinks=False)
    git = ['git', '-c', 'user.name=nova_mini', '-c',
           'user.email=nova_mini@localhost']
    _run(git + ['init', '-q'], log, cwd=dest)
    _run(git + ['add', '-A'], log, cwd=dest)
    _run(git + ['commit', '-q', '-m', 'snapshot'], log, cwd=dest)


def _wheelhouse(log):
    """The requirements' wheels, downloaded once per requirements.txt."""
    with open(REQUIREMENTS, 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    top = os.path.join(venvs.cache_dir(), 'wheelhouse')
    path = os.path.join(top, digest)
    with util.file_lock(os.path.join(top, 'lock'), timeout=600):
        if not os.path.isdir(path):
            # Wheelhouses of other requirements unused for a week go.
            for old in glob.glob(os.path.join(top, '*', '')):
                if time.time() - os.stat(old).st_mtime > 7 * 86400:
                    shutil.rmtree(old)
            shutil.rmtree(path + '.partial', ignore_errors=True)
            _run([sys.executable, '-m', 'pip', 'wheel', '-q', '-w',
                  path + '.partial', '-r', REQUIREMENTS], log, timeout=600,
                 env=_build_env(),
                 what="downloading the requirements' wheels into %s (needs "
                      "PyPI, once per requirements.txt)" % path)
            os.rename(path + '.partial', path)
        os.utime(path)
    return path


@pytest.fixture(scope='module')
def venv(tmp_path_factory):
    """A venv outside the tree holding the wheels of nova_mini and of the
    sample vendordata service, and requirements.txt, without an index:
    what the wheels need and requirements.txt lacks is missing.
    """
    root = tmp_path_factory.mktemp('wheel-install')
    log = root / 'build.log'
    _snapshot(str(root / 'src'), log)
    wheels = []
    for name, (directory, _) in DISTRIBUTIONS.items():
        _run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w',
              str(root / 'dist'), str(root / 'src' / directory)], log,
             cwd=str(root), env=_build_env(),
             what='building the wheel of %s (pip fetches its build backend '
                  'from PyPI, within tools/constraints/build.txt)' % name)
        wheel, = glob.glob(str(root / 'dist' / (
            '%s-*.whl' % name.replace('-', '_'))))
        wheels.append(wheel)
    path = root / 'venv'
    python = getattr(sys, '_base_executable', None) or sys.executable
    # Without pip of its own (ensurepip's install of pip was the slowest
    # step of the set-up): this environment's pip installs into it
    # (--python), from the wheels only, as the venv's own pip would.
    _run([python, '-m', 'venv', '--without-pip', str(path)], log,
         cwd=str(root))
    _run([sys.executable, '-m', 'pip', '--python',
          str(path / 'bin' / 'python'), 'install', '-q', '--no-compile',
          '--no-index', '--find-links', _wheelhouse(log)]
         + wheels + ['-r', REQUIREMENTS], log, cwd=str(root))
    return path


def _wheel(venv, name):
    wheel, = glob.glob(str(venv.parent / 'dist' / ('%s-*.whl' % name)))
    return wheel


@pytest.fixture(scope='module')
def report(venv):
    """installed_checks.py's report, run by the venv's python from a
    directory outside the tree.
    """
    work = venv.parent / 'checks'
    work.mkdir()
    script = shutil.copy(os.path.join(os.path.dirname(__file__),
                                      'installed_checks.py'), str(work))
    checked = ['%s=%s' % (name, package)
               for name, (_, package) in sorted(DISTRIBUTIONS.items())]
    proc = subprocess.run([str(venv / 'bin' / 'python'), script] + checked,
                          cwd=str(work), env=venvs.clean_env(),
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


def test_nova_mini_is_imported_from_the_venv(venv, report):
    assert report['prefix'] == str(venv)
    for name in DISTRIBUTIONS:
        assert report['distributions'][name]['file'].startswith(
            str(venv) + os.sep), name


def test_the_wheel_holds_the_runtime_only(venv):
    """The installer and the sample vendordata service are distributions
    of their own: the nova_mini wheel ships neither.
    """
    with zipfile.ZipFile(_wheel(venv, 'nova_mini')) as wheel:
        names = wheel.namelist()
    assert 'nova_mini/api/__init__.py' in names
    stray = [n for n in names
             if n.startswith(('nova_mini/deploy/',
                              'nova_mini/vendordata_sample/',
                              'nova_mini_deploy/',
                              'nova_mini_vendordata_sample/'))
             or n.endswith('vendordata-sample-config-generator.conf')]
    assert stray == []
    with zipfile.ZipFile(_wheel(venv, 'nova_mini_vendordata_sample')) as w:
        assert 'nova_mini_vendordata_sample/app.py' in w.namelist()


def _constraint(name):
    with open(BUILD_CONSTRAINTS) as lines:
        for line in lines:
            line = line.split('#', 1)[0].strip()
            if line:
                req = requirements.Requirement(line)
                if req.name == name:
                    return req.specifier
    raise AssertionError('%s is not in %s' % (name, BUILD_CONSTRAINTS))


@pytest.mark.parametrize('name', ['nova_mini', 'nova_mini_vendordata_sample'])
def test_the_wheel_is_built_by_the_pinned_setuptools(venv, name):
    with zipfile.ZipFile(_wheel(venv, name)) as wheel:
        [info] = [n for n in wheel.namelist()
                  if n.endswith('.dist-info/WHEEL')]
        fields = email.parser.Parser().parsestr(wheel.read(info).decode())
    # "setuptools (84.2.1)", or "bdist_wheel (0.45.1)" from the wheel
    # package's own command.
    generator, built_by = fields['Generator'].rstrip(')').split(' (')
    assert generator in ('setuptools', 'bdist_wheel'), fields['Generator']
    package = 'setuptools' if generator == 'setuptools' else 'wheel'
    assert built_by in _constraint(package), (fields['Generator'],
                                              BUILD_CONSTRAINTS)


def test_the_wheel_declares_every_entry_point_of_setup_cfg(report):
    assert {name: found['entry_points'] for name, found in
            report['distributions'].items()} == {
        name: declared_entry_points(directory)
        for name, (directory, _) in DISTRIBUTIONS.items()}


def test_every_entry_point_loads_and_every_module_imports(report):
    assert report['errors'] == []
    assert report['distributions']['nova_mini']['modules'] > 200
    assert report['distributions']['nova-mini-vendordata-sample'][
        'modules'] == 5


@pytest.fixture(scope='module')
def helps(venv, report):
    """{script: (exit status, output)} of each script's ``--help``, all
    run at once (after the report, whose imports wrote the byte code
    they read).
    """
    work = venv.parent / 'help'
    work.mkdir()
    running = {}
    for name in SCRIPTS:
        with open(work / name, 'wb') as out:
            running[name] = subprocess.Popen(
                [str(venv / 'bin' / name), '--help'], cwd=str(work),
                env=venvs.clean_env(), stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)
    answers = {}
    for name, proc in running.items():
        try:
            status = proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            status = proc.wait()
        answers[name] = (status, (work / name).read_text())
    return answers


@pytest.mark.parametrize('name', SCRIPTS)
def test_script_help(helps, name):
    status, output = helps[name]
    assert status == 0, output
    assert output.startswith('usage: %s' % name), output


def _request(url, body=None):
    req = urllib.request.Request(
        url, data=json.dumps(body).encode() if body else None,
        headers={'X-Auth-Token': 'admin:admin',
                 'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read() or b'null')
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode('utf-8', 'replace')
    except OSError:     # not listening yet
        return None, None


def test_api_on_sqlite_answers(venv):
    work = venv.parent / 'api'
    work.mkdir()
    port = util.free_port()
    conf = work / 'nova_mini.conf'
    conf.write_text(
        '[DEFAULT]\nstate_path = %s\n'
        '[database]\nconnection = sqlite:///%s\n'
        '[api]\nauth_strategy = noauth2\nbind_host = 127.0.0.1\n'
        'bind_port = %d\nworkers = 1\n'
        % (work, work / 'nova_mini.sqlite', port))
    bindir = venv / 'bin'
    _run([str(bindir / 'nova-mini-manage'), '--config-file', str(conf),
          'db', 'sync'], work / 'manage.log', cwd=str(work))
    log = work / 'api.log'
    with open(log, 'wb') as out:
        proc = processes.Daemon(
            [str(bindir / 'nova-mini-api'), '--config-file', str(conf)],
            stop_timeout=60, cwd=str(work), env=venvs.clean_env(),
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = 'http://127.0.0.1:%d/compute' % port
    with proc:
        status, root = util.wait_until(
            lambda: _request(base + '/')[0] == 200 and _request(base + '/'),
            60, 'GET /compute/ of nova-mini-api',
            abort=lambda: proc.poll() is not None and 'exited with %s:\n%s'
            % (proc.returncode, util.tail(str(log))))
        assert [v['id'] for v in root['versions']] == ['v2.0', 'v2.1']
        flavor = {'flavor': {'name': 'from-the-wheel', 'ram': 512,
                             'vcpus': 1, 'disk': 1}}
        status, created = _request(base + '/v2.1/flavors', flavor)
        assert status == 200, (created, util.tail(str(log)))
        status, listed = _request(base + '/v2.1/flavors/detail')
        assert status == 200
        assert [(f['id'], f['name']) for f in listed['flavors']] == [
            (created['flavor']['id'], 'from-the-wheel')]
    assert proc.returncode == 0, util.tail(str(log))
