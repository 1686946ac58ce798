"""Sphinx configuration of the nova_mini documentation.

Build from the repository root (``tox -e docs``): the option and policy
directives name their generator files relative to it.
"""

project = 'nova_mini'
copyright = '2026, nova_mini developers'
author = 'nova_mini developers'

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'nova_mini.api.validation.extra_specs.sphinxext',
]

exclude_patterns = ['_build']
html_theme = 'alabaster'
