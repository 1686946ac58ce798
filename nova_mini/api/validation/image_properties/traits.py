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

"""The ``trait:{trait}`` image properties: traits a node must have.

Nova takes any value and only counts ``required`` (an image cannot forbid
a trait); the registry does the same, so other values are accepted and
ignored.
"""

from nova_mini.api.validation.image_properties import base

DEFINITIONS = [
    base.ImageProperty(
        name='trait:{trait}',
        description=(
            'With the value ``required``, the server is only placed on a '
            'node that has the trait ``{trait}`` (a standard trait of '
            'os-traits or a ``CUSTOM_`` one), beside the flavor\'s '
            'required traits. Other values are ignored.'),
        parameters=[base.Parameter(
            'trait', r'.+', 'The name of a trait.')],
        value=base.Value(str, description='``required``.'),
        mirrors='trait{group}:{trait}',
        field='traits_required',
        drivers=('scheduler (placement)',),
        example='trait:CUSTOM_GPU=required',
    ),
]
