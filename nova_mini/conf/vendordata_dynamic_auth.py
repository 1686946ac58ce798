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

"""Options of the [vendordata_dynamic_auth] group: how the metadata service
authenticates to dynamic vendordata targets (keystoneauth1 options)."""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

vendordata_dynamic_auth_group = cfg.OptGroup(
    'vendordata_dynamic_auth',
    title='Dynamic vendordata authentication',
    help='The Keystone credentials (auth_type and the options of that '
         'plugin, e.g. password with auth_url, username, password, '
         'user_domain_name, project_name, project_domain_name) the metadata '
         'service gets a token with, sent to every DynamicJSON target as '
         'X-Auth-Token. cafile, certfile, keyfile and insecure apply to the '
         'connection to Keystone; the targets\' TLS is set by [api] '
         'vendordata_dynamic_ssl_*. With no auth_type, the targets get no '
         'token (a warning is logged at start).')

# The plugins listed in the sample config. Any keystoneauth1 plugin works:
# its options are registered when [vendordata_dynamic_auth] auth_type is read.
SAMPLE_PLUGINS = ('password', 'v3password', 'v3applicationcredential')


def register_opts(conf):
    conf.register_group(vendordata_dynamic_auth_group)
    ks_loading.register_session_conf_options(
        conf, vendordata_dynamic_auth_group.name)
    ks_loading.register_auth_conf_options(
        conf, vendordata_dynamic_auth_group.name)


def registered_opts():
    """The options register_opts registers (the session's and auth_type,
    auth_section): the plugins' own are registered when one is loaded.
    """
    return (ks_loading.get_session_conf_options() +
            ks_loading.get_auth_common_conf_options())


def plugin_opts():
    """The options of SAMPLE_PLUGINS, each name once, for the sample."""
    seen = {opt.name for opt in registered_opts()}
    listed = []
    for plugin in SAMPLE_PLUGINS:
        for opt in ks_loading.get_auth_plugin_conf_options(plugin):
            if opt.name not in seen:
                seen.add(opt.name)
                listed.append(opt)
    return listed


def list_opts():
    return {vendordata_dynamic_auth_group: registered_opts() + plugin_opts()}
