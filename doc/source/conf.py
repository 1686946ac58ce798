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
]

exclude_patterns = ['_build']
html_theme = 'alabaster'
