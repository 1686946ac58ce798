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

"""Sphinx configuration of the nova_mini documentation.

Build from the repository root (``tox -e docs``): the option and policy
directives name their generator files relative to it.
"""

import os
import sys

# Documentation tooling (the extra spec extension) lives beside the
# documentation, not in the package the daemons import.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__),
                                                '..', 'ext')))

project = 'nova_mini'
copyright = '2026, nova_mini developers'
author = 'nova_mini developers'

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'extra_specs',
    'microversions',
]

exclude_patterns = ['_build']
html_theme = 'alabaster'
