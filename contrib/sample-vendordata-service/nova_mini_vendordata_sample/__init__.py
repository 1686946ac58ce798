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
