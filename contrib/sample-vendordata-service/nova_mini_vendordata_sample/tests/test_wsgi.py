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

"""The WSGI entry point (uwsgi, mod_wsgi): ``application`` built on first
access from the config file of $NOVA_MINI_VENDORDATA_SAMPLE_CONFIG."""

import importlib
import uuid

import webtest

from nova_mini_vendordata_sample import wsgi


def test_application_from_the_config_file(tmp_path, monkeypatch):
    path = tmp_path / 'sample.conf'
    path.write_text('[vendordata_sample]\nauth_strategy = noauth\n'
                    'cache_max_age = 7\n')
    monkeypatch.setenv(wsgi.CONFIG_ENV, str(path))
    module = importlib.reload(wsgi)
    application = module.application
    assert module.application is application        # built once
    client = webtest.TestApp(application)
    instance = str(uuid.uuid4())
    resp = client.post_json('/', {'instance-id': instance,
                                  'project-id': 'p'})
    assert resp.json['instance-id'] == instance
    assert resp.headers['Cache-Control'] == 'max-age=7'
    assert client.get('/healthcheck').text == 'OK'
