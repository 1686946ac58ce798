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

"""The dependency floors admit no release with a published advisory that
touches how nova_mini uses the package: a floor below the first fixed
release lets pip keep (or a packager pick) a vulnerable one.
"""

import os

from packaging import requirements
from packaging import version
import pytest

import nova_mini

REPO = os.path.dirname(os.path.dirname(nova_mini.__file__))

# package -> (first release that fixes the advisories, which ones)
FIXED = {
    'requests': ('2.32.4', 'CVE-2024-35195 (verify=False kept for a '
                 'connection), CVE-2024-47081 (.netrc credentials leak)'),
    'gunicorn': ('23.0.0', 'CVE-2024-1135, CVE-2024-6827 (request '
                 'smuggling through Transfer-Encoding)'),
    'webob': ('1.8.8', 'CVE-2024-42353 (open redirect in Location)'),
    'cryptography': ('44.0.1', 'CVE-2024-12797 (bundled OpenSSL, RPK '
                     'authentication), CVE-2024-26130'),
    'urllib3': ('2.6.0', 'CVE-2025-50181, CVE-2025-50182 (redirects not '
                'disabled), CVE-2025-66471 (streamed decompression '
                'bombs)'),
    'pymysql': ('1.1.1', 'CVE-2024-36039 (SQL injection through dict '
                'keys)'),
    'pyjwt': ('2.10.1', 'CVE-2022-29217 (algorithm confusion), '
              'CVE-2024-53861 (issuer checked as a substring)'),
    'jinja2': ('3.1.6', 'CVE-2024-56201, CVE-2024-56326, CVE-2025-27516 '
               '(sandbox breakouts)'),
}


def _floors(filename):
    floors = {}
    with open(os.path.join(REPO, filename)) as lines:
        for line in lines:
            line = line.split('#', 1)[0].strip()
            if not line or line.startswith('-'):
                continue
            req = requirements.Requirement(line)
            for spec in req.specifier:
                if spec.operator in ('>=', '==', '~='):
                    floors[req.name.lower()] = version.Version(spec.version)
    return floors


@pytest.mark.parametrize('filename', ['requirements.txt',
                                      'test-requirements.txt'])
def test_no_floor_below_a_fixed_release(filename):
    floors = _floors(filename)
    low = ['%s>=%s admits %s (fixed in %s)'
           % (name, floors[name], advisories, fixed)
           for name, (fixed, advisories) in sorted(FIXED.items())
           if name in floors and floors[name] < version.Version(fixed)]
    assert low == []


def test_runtime_packages_with_advisories_have_floors():
    # requests, gunicorn, WebOb, cryptography and urllib3 are imported by
    # the daemons (cryptography for key pairs, urllib3 under requests),
    # PyJWT and Jinja2 by their libraries (keystonemiddleware,
    # oslo.middleware): each needs an explicit floor in requirements.txt.
    floors = _floors('requirements.txt')
    missing = sorted({'requests', 'gunicorn', 'webob', 'cryptography',
                      'urllib3', 'pyjwt', 'jinja2'} - set(floors))
    assert missing == []
