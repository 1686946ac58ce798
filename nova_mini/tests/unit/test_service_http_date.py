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

"""The Date header of gunicorn's answers, formatted once per second
(nova_mini.service.http_date): the same text as gunicorn's, and the hook
still the one gunicorn calls."""

import inspect
import time

from gunicorn.http import wsgi as gunicorn_wsgi
from gunicorn import util as gunicorn_util

from nova_mini import service


def test_gunicorn_calls_it():
    assert gunicorn_util.http_date is service.http_date
    assert 'util.http_date()' in inspect.getsource(
        gunicorn_wsgi.Response.default_headers), (
        "gunicorn's answers no longer take their Date from util.http_date:"
        ' remove nova_mini.service.http_date or find the new hook')


def test_the_text_of_the_second_as_gunicorn_formats_it():
    for _ in range(3):
        before = int(time.time())
        ours = service.http_date()
        after = int(time.time())
        assert ours in {service.GUNICORN_HTTP_DATE(before),
                        service.GUNICORN_HTTP_DATE(after)}
    assert service.http_date(0) == 'Thu, 01 Jan 1970 00:00:00 GMT'


def test_formatted_once_per_second(monkeypatch):
    first = service.http_date()
    second = service.http_date()
    # gunicorn's function builds a new string on every call.
    assert second is first or second != first     # a new second began
    now = int(time.time())
    monkeypatch.setattr(service, '_date_of_second', (now - 1, 'stale'))
    assert service.http_date() != 'stale'
    assert service._date_of_second[0] >= now
