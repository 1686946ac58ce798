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

"""Running the console scripts as an operator does: the installed script,
a config file of its own, a SQLite database.
"""

import os
import shutil
import subprocess
import sys


def script(name):
    """The path of the console script ``name`` of this interpreter's
    environment (else the one on PATH).
    """
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else shutil.which(name)


def run(name, config_file, *args):
    """Run the console script ``name`` with ``--config-file`` and
    ``args``; return the CompletedProcess (text output captured).
    """
    return subprocess.run(
        [script(name), '--config-file', str(config_file)] + list(args),
        capture_output=True, text=True, timeout=120)


def config(tmp_path, metadata=''):
    """Write a config file for a SQLite database in ``tmp_path``, with
    ``metadata`` as the [metadata] section's lines.

    :returns: (database URL, config file path).
    """
    url = 'sqlite:///%s' % (tmp_path / 'nova_mini.sqlite')
    config_file = tmp_path / 'nova-mini.conf'
    config_file.write_text('[database]\nconnection = %s\n[metadata]\n%s\n'
                           % (url, metadata))
    return url, config_file
