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


"""Options of the [wsgi] group: the HTTP server of nova-mini-api and
nova-mini-metadata (Nova's name for the one option it shares)."""

from oslo_config import cfg

wsgi_group = cfg.OptGroup('wsgi', title='WSGI server options',
                          help='The HTTP server of the API and metadata '
                               'services.')

wsgi_opts = [
    cfg.IntOpt('max_header_line', default=16384, min=1024,
               help='Longest request header accepted, in bytes: a longer '
                    'one is answered 431 before the request reaches the '
                    'application. Raise it for very large tokens; at most '
                    '100 headers are read, and request lines (path and '
                    'query string) are limited to 8190 bytes (414).'),
]


def register_opts(conf):
    conf.register_group(wsgi_group)
    conf.register_opts(wsgi_opts, group=wsgi_group)


def list_opts():
    return {wsgi_group: wsgi_opts}
