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

"""The plugin's options: whether nova_mini is there, and how to reach its
metadata service.
"""

from oslo_config import cfg

service_option = cfg.BoolOpt(
    'nova_mini', default=True,
    help='Whether the compute service is nova_mini (runs this plugin\'s '
         'tests).')

group = cfg.OptGroup(name='nova_mini', title='nova_mini options')

options = [
    cfg.StrOpt('metadata_url', default='http://127.0.0.1:8775',
               help='The metadata service, as a metadata proxy reaches it.'),
    cfg.StrOpt('metadata_shared_secret', secret=True, default='',
               help='nova_mini\'s [metadata] metadata_proxy_shared_secret: '
                    'the metadata tests sign their requests with it. '
                    'Empty: those tests are skipped.'),
    cfg.StrOpt('vendordata_sample_target', default='',
               help='The DynamicJSON target under which the metadata '
                    'service serves the answer of nova_mini\'s sample '
                    'vendordata service (contrib/sample-vendordata-'
                    'service): "sample" in the quick start and devstack. '
                    'Empty: vendor_data2.json is only checked to be a '
                    'JSON object.'),
    cfg.StrOpt('vendordata_sample_realm', default='example.org',
               help='The sample vendordata service\'s [vendordata_sample] '
                    'realm: the domain of the fqdn it answers.'),
    cfg.StrOpt('node_driver', default='fake-hardware',
               help='The driver of the nodes the server tests register.'),
]
