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

"""An image property of the same fictional out-of-tree scheduler filter
(the image's side of ``sample_scheduler:rack_affinity``)."""

from nova_mini.api.validation.image_properties import base

DEFINITIONS = [
    base.ImageProperty(
        name='sample_rack_affinity',
        description='The rack an image was certified on: the sample '
                    'RackAffinityFilter places servers of the image only on '
                    'racks of that label, as the flavor extra spec it '
                    'mirrors does.',
        value=base.Value(str, pattern=r'[a-z][a-z0-9-]{0,62}',
                         description='A rack label.'),
        mirrors='sample_scheduler:rack_affinity',
        drivers=('sample RackAffinityFilter',),
        example='rack-a1',
    ),
]
