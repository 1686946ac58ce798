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

"""What nova-mini-metadata checks before it forks its workers, and what
the WSGI entry point (uwsgi, mod_wsgi) checks when it builds the app.
(The live counterpart runs the daemon: tests/live/test_metadata.py.)
"""

import logging

import pytest

from nova_mini.cmd import metadata as cmd_metadata
from nova_mini import exception
from nova_mini.wsgi import metadata as wsgi_metadata


@pytest.mark.parametrize('overrides, expected', [
    ({'metadata_proxy_shared_secret': ''},
     '[metadata] metadata_proxy_shared_secret is not set'),
    ({'vendordata_providers': ['NoSuchProvider']}, 'NoSuchProvider'),
    ({'vendordata_jsonfile_path': '/nonexistent/vd.json'},
     '/nonexistent/vd.json'),
])
def test_bad_config_ends_the_master_with_one_line(conf, caplog, overrides,
                                                  expected):
    for name, value in overrides.items():
        group = 'metadata' if name.startswith('metadata') else 'api'
        conf.config(group=group, **{name: value})
    with caplog.at_level(logging.ERROR), pytest.raises(SystemExit) as ended:
        cmd_metadata.require_metadata_config(conf.conf)
    assert ended.value.code == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    message = errors[0].getMessage()
    assert expected in message and '\n' not in message


def test_good_config_passes(conf):
    cmd_metadata.require_metadata_config(conf.conf)


def test_insecure_option_warns_once_in_the_master(conf, caplog):
    conf.config(metadata_proxy_shared_secret='',
                insecure_unsigned_requests=True, group='metadata')
    with caplog.at_level(logging.WARNING):
        cmd_metadata.require_metadata_config(conf.conf)
        # A worker building its app does not warn again.
        wsgi_metadata._app.build_app(conf.conf)
    assert caplog.text.count('insecure_unsigned_requests is') == 1


def test_wsgi_entry_point_refuses_without_secret(conf):
    conf.config(metadata_proxy_shared_secret='', group='metadata')
    with pytest.raises(exception.MetadataConfigError):
        wsgi_metadata._build_app()
