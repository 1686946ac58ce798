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

"""The registry of Glance image properties Nova reads: what each means,
which values it takes, how Nova coerces them and which flavor extra spec it
mirrors. The types and the registry are those of the extra specs
(``nova_mini.api.validation.extra_specs``): ``base`` adds what an image
property has more (coercion, the mirrored extra spec, legacy names), the
concern modules hold the in-tree definitions, ``registry`` the lookup and
validation."""
