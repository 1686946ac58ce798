#!/usr/bin/env python3
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

"""Check nova_mini's compute version documents as Tempest does.

Runs what tempest.api.compute.test_versions checks (the version list at the
unversioned URL starts with v2.0; each version has one self link, whose
document answers 200 with the same self link) against nova-mini-api
in-process, validating every answer with Tempest's own response schemas
(tempest.lib.api_schema.response.compute.v2_1.versions) and format
checker. Tempest is not a requirement: install it in a scratch virtualenv
and name its site-packages::

    python3 -m venv /tmp/tempest-venv
    /tmp/tempest-venv/bin/pip install tempest==47.0.0
    .venv-tests/bin/python tools/tempest/compute_versions.py \\
        /tmp/tempest-venv/lib/python3.11/site-packages

Exits 0 when every check passes, 1 otherwise (each failure printed).
"""

import argparse
import sys
import urllib.parse


def _check(failures, condition, text):
    print('%s %s' % ('ok  ' if condition else 'FAIL', text))
    if not condition:
        failures.append(text)


def run(app, schema, validator_cls, format_checker):
    """Run Tempest's version checks against ``app`` (a webtest.TestApp).

    :returns: the list of failures (empty: all passed).
    """
    import jsonschema

    failures = []

    def valid(body, response_schema, what):
        try:
            jsonschema.validate(body, response_schema['response_body'],
                                cls=validator_cls,
                                format_checker=format_checker)
        except jsonschema.ValidationError as exc:
            _check(failures, False, '%s matches Tempest\'s schema: %s'
                   % (what, exc.message))
            return
        _check(failures, True, '%s matches Tempest\'s schema' % what)

    # The compute endpoint of the catalog, reduced as Tempest does to
    # the unversioned URL (everything before /v<N>).
    response = app.get('/compute/', expect_errors=True)
    _check(failures, response.status_int in
           schema.list_versions['status_code'],
           'GET /compute/ answers %d' % response.status_int)
    body = response.json
    valid(body, schema.list_versions, 'the version list')
    versions = body.get('versions', [])
    _check(failures, bool(versions) and versions[0].get('id') == 'v2.0',
           'the first listed version is v2.0 (%s)'
           % [v.get('id') for v in versions])
    for version in versions:
        links = [link for link in version.get('links', [])
                 if link.get('rel') == 'self']
        _check(failures, len(links) == 1,
               '%s has one self link' % version.get('id'))
        if len(links) != 1:
            continue
        path = urllib.parse.urlsplit(links[0]['href']).path
        response = app.get(path, headers={'X-Auth-Token': 'admin:admin'},
                           expect_errors=True)
        _check(failures, response.status_int in
               schema.get_one_version['status_code'],
               'GET %s answers %d' % (path, response.status_int))
        valid(response.json, schema.get_one_version, 'GET %s' % path)
        new_links = [link for link in response.json['version']['links']
                     if link['rel'] == 'self']
        _check(failures, new_links == links,
               'the self link of %s is the listed one' % path)
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('tempest_site_packages',
                        help='site-packages of a virtualenv with tempest')
    args = parser.parse_args(argv)
    # Last on the path: this interpreter's own packages win.
    sys.path.append(args.tempest_site_packages)
    from tempest.lib.api_schema.response.compute.v2_1 import versions
    from tempest.lib.common import jsonschema_validator
    import webtest

    from nova_mini.tests.fixtures import api as api_fixture

    fixture = api_fixture.APIFixture()
    fixture.setUp()
    try:
        failures = run(webtest.TestApp(fixture.app), versions,
                       jsonschema_validator.JSONSCHEMA_VALIDATOR,
                       jsonschema_validator.FORMAT_CHECKER)
    finally:
        fixture.cleanUp()
    print('%d failure(s)' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
