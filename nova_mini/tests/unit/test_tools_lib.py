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

"""tools/lib.sh, which tools/run-tests.sh and tools/stack.sh source: its
download steps are bounded (a stalled apt-get or pip stops with a message
naming the step and the variable that waits longer).
"""

import os
import pathlib
import subprocess
import sys

LIB = pathlib.Path(__file__).resolve().parents[3] / 'tools' / 'lib.sh'


def _fake(tmp_path, name, body):
    path = tmp_path / 'bin' / name
    path.parent.mkdir(exist_ok=True)
    path.write_text('#!/bin/sh\n' + body + '\n')
    path.chmod(0o755)
    return str(path)


def _lib(tmp_path, script, **env):
    """Run ``script`` in bash after sourcing lib.sh, with the fakes of
    tmp_path/bin first on PATH.
    """
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(('PIP_', 'NOVA_MINI_'))}
    environ.update(env)
    environ['PATH'] = '%s:%s' % (tmp_path / 'bin', environ['PATH'])
    return subprocess.run(
        ['bash', '-c', 'set -euo pipefail; source "$0"; ' + script,
         str(LIB)],
        env=environ, capture_output=True, text=True, timeout=60)


def test_pip_install_stops_after_its_time(tmp_path):
    python = _fake(tmp_path, 'python', 'echo collecting; exec sleep 30')
    log = tmp_path / 'pip.log'
    proc = _lib(tmp_path, 'pip_install %s %s foo' % (python, log),
                NOVA_MINI_PIP_TIMEOUT='1')
    assert proc.returncode == 1
    assert ('ERROR: pip install stopped after 1 s (full log: %s); '
            'NOVA_MINI_PIP_TIMEOUT=SECONDS waits longer' % log) in proc.stderr
    assert log.read_text() == 'collecting\n'


def test_pip_install_gets_connection_timeout_and_retries(tmp_path):
    python = _fake(tmp_path, 'python',
                   'echo "$PIP_TIMEOUT $PIP_RETRIES $*"; exit 0')
    log = tmp_path / 'pip.log'
    proc = _lib(tmp_path, 'pip_install %s %s -r x.txt' % (python, log))
    assert proc.returncode == 0, proc.stderr
    assert log.read_text() == '60 5 -m pip install -r x.txt\n'
    # The machine's own settings win.
    proc = _lib(tmp_path, 'pip_install %s %s y' % (python, log),
                PIP_DEFAULT_TIMEOUT='180', PIP_RETRIES='2')
    assert log.read_text() == '180 2 -m pip install y\n'


def test_a_failed_pip_install_shows_its_log(tmp_path):
    python = _fake(tmp_path, 'python', 'echo "No matching distribution"; '
                   'exit 1')
    log = tmp_path / 'pip.log'
    proc = _lib(tmp_path, 'pip_install %s %s nothing' % (python, log))
    assert proc.returncode == 1
    assert 'No matching distribution' in proc.stderr
    assert 'ERROR: pip install failed (full log: %s)' % log in proc.stderr


def test_apt_ensure_stops_after_its_time(tmp_path):
    _fake(tmp_path, 'apt-get', 'echo "apt-get $*"; exec sleep 30')
    # (as_root needs root or sudo; a fake sudo runs the command)
    _fake(tmp_path, 'sudo', 'shift; exec "$@"')
    proc = _lib(tmp_path, 'apt_ensure nova-mini-no-such-package',
                NOVA_MINI_APT_TIMEOUT='1')
    assert proc.returncode == 1
    assert ('ERROR: apt-get stopped after 1 s (a stalled mirror or a held '
            'dpkg lock?); NOVA_MINI_APT_TIMEOUT=SECONDS waits longer'
            in proc.stderr)
    # The connections of apt-get are bounded too.
    assert ('apt-get -q -o Acquire::http::Timeout=60 -o Acquire::Retries=3 '
            'update' in proc.stderr)


def test_ensure_venv_installs_again_when_a_distribution_changes(tmp_path):
    """The setup.cfg of a directory argument (a distribution of contrib/,
    whose entry points it declares) is part of what makes a venv up to
    date, as the project's own is.
    """
    repo = tmp_path / 'repo'
    (repo / 'tools').mkdir(parents=True)
    (repo / 'tools' / 'lib.sh').write_text(LIB.read_text())
    dist = repo / 'contrib' / 'dist'
    dist.mkdir(parents=True)
    (repo / 'doc').mkdir()
    for name in ('requirements.txt', 'test-requirements.txt',
                 'doc/requirements.txt'):
        (repo / name).write_text('')
    (repo / 'setup.cfg').write_text('[metadata]\nname = project\n')
    (dist / 'setup.cfg').write_text('[metadata]\nname = dist\n')
    venv = tmp_path / 'venv'
    (venv / 'bin').mkdir(parents=True)
    calls = tmp_path / 'calls'
    python = venv / 'bin' / 'python'
    python.write_text('#!/bin/sh\necho "$*" >> %s\n' % calls)
    python.chmod(0o755)

    def ensure():
        proc = subprocess.run(
            ['bash', '-c', 'set -euo pipefail; source "$0"; '
             'ensure_venv -e . -e ./contrib/dist',
             str(repo / 'tools' / 'lib.sh')],
            env=dict(os.environ, NOVA_MINI_VENV=str(venv)),
            capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return calls.read_text().count('\n') if calls.exists() else 0

    assert ensure() == 1
    assert ensure() == 1        # up to date
    (dist / 'setup.cfg').write_text(
        '[metadata]\nname = dist\n[entry_points]\nconsole_scripts =\n'
        '    dist = dist:main\n')
    assert ensure() == 2
    assert ensure() == 2
    (dist / 'requirements.txt').write_text('nova_mini\n')
    assert ensure() == 3


def _fake_repo(root):
    """A checkout's skeleton at ``root`` with this lib.sh and the tree's
    build constraints.
    """
    (root / 'tools' / 'constraints').mkdir(parents=True)
    (root / 'tools' / 'lib.sh').write_text(LIB.read_text())
    (root / 'tools' / 'constraints' / 'build.txt').write_text(
        (LIB.parent / 'constraints' / 'build.txt').read_text())
    (root / 'doc').mkdir()
    for name in ('requirements.txt', 'test-requirements.txt',
                 'doc/requirements.txt'):
        (root / name).write_text('')
    (root / 'setup.cfg').write_text('[metadata]\nname = project\n')
    return root


def _ensure_venv_pip_constraint(tmp_path, repo, **env):
    """Run ensure_venv -e . in ``repo`` with a fake venv whose python
    records its PIP_CONSTRAINT; that value.
    """
    venv = tmp_path / 'venv'
    (venv / 'bin').mkdir(parents=True)
    seen = tmp_path / 'seen'
    python = venv / 'bin' / 'python'
    python.write_text('#!/bin/sh\nprintf "%%s" "$PIP_CONSTRAINT" > "%s"\n'
                      % seen)
    python.chmod(0o755)
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(('PIP_', 'NOVA_MINI_'))}
    environ.update(env, NOVA_MINI_VENV=str(venv))
    proc = subprocess.run(
        ['bash', '-c', 'set -euo pipefail; source "$0"; ensure_venv -e .',
         str(repo / 'tools' / 'lib.sh')],
        env=environ, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return seen.read_text()


def test_ensure_venv_builds_the_tree_within_the_build_constraints(tmp_path):
    """pip builds the tree's distributions (setuptools, wheel, pbr in its
    isolated build environment) within tools/constraints/build.txt, given
    as PIP_CONSTRAINT (pip's -c does not reach that environment); the
    machine's own constraints are kept.
    """
    repo = _fake_repo(tmp_path / 'repo')
    build = str(repo / 'tools' / 'constraints' / 'build.txt')
    assert _ensure_venv_pip_constraint(tmp_path, repo) == build
    (tmp_path / 'venv').rename(tmp_path / 'old-venv')
    assert _ensure_venv_pip_constraint(
        tmp_path, repo, PIP_CONSTRAINT='/etc/mine.txt') == (
        '/etc/mine.txt ' + build)


def test_build_constraints_of_a_checkout_path_with_spaces(tmp_path):
    """pip splits PIP_CONSTRAINT at spaces: such a path goes as a file:
    URL, which pip reads.
    """
    repo = _fake_repo(tmp_path / 'my checkout')
    value = _ensure_venv_pip_constraint(tmp_path, repo)
    assert value == 'file://%s/tools/constraints/build.txt' % str(
        repo).replace(' ', '%20')
    # pip refuses a release outside the constraints it read there.
    proc = subprocess.run(
        [sys.executable, '-m', 'pip', 'install', '--dry-run', '--no-index',
         '--no-deps', '--find-links', str(tmp_path), 'setuptools==1.0'],
        env=dict(os.environ, PIP_CONSTRAINT=value), capture_output=True,
        text=True, timeout=120)
    assert proc.returncode != 0
    assert 'setuptools<85' in proc.stdout + proc.stderr, proc.stderr


def test_the_tree_is_installed_within_the_build_constraints():
    """Every pip install of this tree's distributions in tools/ goes
    through pip_install_tree (ensure_venv does): none through pip_install
    itself.
    """
    for script in sorted(LIB.parent.glob('*.sh')):
        text = script.read_text().replace('\\\n', ' ')
        for line in text.splitlines():
            words = line.split()
            if words[:1] != ['pip_install']:
                continue
            assert not [w for w in words if w.strip('"') in ('.', '-e')
                        or '$REPO' in w or 'contrib/' in w], (script, line)


def test_run_tests_builds_the_venv_stack_sh_finds_up_to_date(tmp_path):
    """tools/run-tests.sh builds the quick start test's venv (in the
    background, during its set-up) with tools/stack.sh's own install
    step, STACK_PIP_ARGS: the test's stack.sh then installs nothing.
    """
    tools = LIB.parent
    stack_steps = [line.strip() for line in
                   (tools / 'stack.sh').read_text().splitlines()
                   if line.strip().startswith('ensure_venv')]
    assert stack_steps == ['ensure_venv "${STACK_PIP_ARGS[@]}"']
    prebuild = '(VENV=$quickstart_venv; ensure_venv "${STACK_PIP_ARGS[@]}")'
    assert prebuild in (tools / 'run-tests.sh').read_text()

    repo = _fake_repo(tmp_path / 'repo')
    venv = tmp_path / 'quickstart-venv'
    (venv / 'bin').mkdir(parents=True)
    calls = tmp_path / 'calls'
    python = venv / 'bin' / 'python'
    python.write_text('#!/bin/sh\necho "$*" >> %s\n' % calls)
    python.chmod(0o755)
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(('PIP_', 'NOVA_MINI_'))}

    def run(script, **env):
        proc = subprocess.run(
            ['bash', '-c', 'set -euo pipefail; source "$0"; ' + script,
             str(repo / 'tools' / 'lib.sh')],
            env=dict(environ, **env), capture_output=True, text=True,
            timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    run('quickstart_venv=%s; %s' % (venv, prebuild))
    installed = calls.read_text().splitlines()
    assert len(installed) == 1
    assert installed[0].endswith(
        'install -e . -e ./contrib/nova-mini-deploy '
        '-e ./contrib/sample-vendordata-service '
        'python-openstackclient python-ironicclient'), installed
    logged = run(stack_steps[0], NOVA_MINI_VENV=str(venv))
    assert 'venv %s is up to date' % venv in logged
    assert calls.read_text().splitlines() == installed
