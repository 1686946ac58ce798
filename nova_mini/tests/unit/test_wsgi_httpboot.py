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

"""nova_mini.wsgi.httpboot: the web server app of [deploy] http_root."""

import pytest
import webob

from nova_mini.wsgi import httpboot


@pytest.fixture
def app(tmp_path):
    (tmp_path / 'redfish').mkdir()
    (tmp_path / 'redfish' / 'boot-n.iso').write_bytes(bytes(range(256)) * 4)
    (tmp_path / 'redfish' / '.tmp-boot-n.isoabc').write_bytes(b'partial')
    (tmp_path / 'master.lock').write_bytes(b'')
    return httpboot.ImagesApp(str(tmp_path))


def _get(app, path, method='GET', **headers):
    return webob.Request.blank(path, method=method,
                               headers=headers).get_response(app)


def test_file_whole_and_ranges(app):
    resp = _get(app, '/redfish/boot-n.iso')
    assert resp.status_int == 200
    assert resp.body == bytes(range(256)) * 4
    assert resp.headers['Accept-Ranges'] == 'bytes'
    # BMCs read virtual media by byte ranges.
    part = _get(app, '/redfish/boot-n.iso', Range='bytes=256-511')
    assert part.status_int == 206
    assert part.body == bytes(range(256))
    assert part.headers['Content-Range'] == 'bytes 256-511/1024'
    head = _get(app, '/redfish/boot-n.iso', method='HEAD')
    assert head.status_int == 200 and head.content_length == 1024


@pytest.mark.parametrize('path', [
    '/redfish/.tmp-boot-n.isoabc', '/redfish/', '/', '/redfish/missing',
    '/redfish/../master.lock', '/redfish/%2e%2e/master.lock'])
def test_not_served(app, path):
    # No partial file, no listing, nothing outside the root.
    assert _get(app, path).status_int in (403, 404)


def test_only_reads(app):
    resp = _get(app, '/redfish/boot-n.iso', method='PUT')
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET, HEAD'
