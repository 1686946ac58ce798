"""Sphinx configuration of the nova_mini release notes."""

project = 'nova_mini Release Notes'
copyright = '2026, nova_mini developers'
extensions = ['reno.sphinxext']
exclude_patterns = ['_build']
html_theme = 'alabaster'
