"""A sample dynamic vendordata service: what a deployer copies and extends.

nova-mini-metadata's DynamicJSON provider POSTs a JSON description of an
instance (``instance-id``, ``project-id``, ``image-id``, ``user-data``,
``hostname``, ``metadata``, ``boot-roles``) to each configured target,
with a Keystone token of its service user, and puts the JSON object the
target returns under the target's name in ``vendor_data2.json``.

This package is such a target, kept small on purpose:

``conf.py``
    Its own options (group ``[vendordata_sample]``), read from its own
    config file; ``[keystone_authtoken]`` configures token validation.
``document.py``
    The per-instance document: the part a deployer rewrites (for example
    to hand out Active Directory join credentials).
``app.py``
    The WSGI application: keystonemiddleware ``auth_token``, a role check,
    input validation, and HTTP caching headers (``Cache-Control``,
    ``ETag``, ``If-None-Match``) so that the metadata service calls it
    once per instance rather than once per instance read.
``cmd.py``
    The console script ``nova-mini-vendordata-sample``, served by gunicorn
    like the other nova_mini daemons.
"""
