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

"""nova-mini-scheduler loads the vendordata providers (for config drives):
a configuration they refuse ends it at start with one line."""

import logging

import pytest

from nova_mini.cmd import scheduler as cmd_scheduler


@pytest.mark.parametrize('overrides, expected', [
    ({'vendordata_providers': ['NoSuchProvider']}, 'NoSuchProvider'),
    ({'vendordata_jsonfile_path': '/nonexistent/vd.json'},
     '/nonexistent/vd.json'),
])
def test_bad_vendordata_config_ends_the_scheduler_with_one_line(
        conf, caplog, overrides, expected):
    conf.config(group='api', **overrides)
    with caplog.at_level(logging.ERROR), pytest.raises(SystemExit) as ended:
        cmd_scheduler.require_vendordata_config(conf.conf)
    assert ended.value.code == 1
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    message = errors[0].getMessage()
    assert expected in message and '\n' not in message


def test_good_config_passes(conf):
    cmd_scheduler.require_vendordata_config(conf.conf)
