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

"""Definitions of the ``os_`` image properties: the guest operating
system and what may be done inside it.

``os_type`` is read case-insensitively, as Nova does.
"""

from nova_mini.api.validation.image_properties import base

OS_TYPES = ('linux', 'windows')

DEFINITIONS = [
    base.ImageProperty(
        name='os_type',
        description=(
            'Operating system family of the image; drivers choose the '
            'ephemeral disk\'s file system and the clock by it.'),
        value=base.Value(str, enum=OS_TYPES),
        coerce=base.folded_enum(OS_TYPES),
        drivers=('libvirt',),
        example='linux',
    ),
    base.ImageProperty(
        name='os_distro',
        description=(
            'Distribution of the guest in lower case, as libosinfo names '
            'it (``ubuntu``, ``rhel``, ``windows`` ...). Nova takes any '
            'text.'),
        value=base.Value(str),
        drivers=('libvirt', 'vmware'),
        example='ubuntu',
    ),
    base.ImageProperty(
        name='os_admin_user',
        description=(
            'Name of the administrator account whose password '
            '``set-password`` changes (default ``root``, or '
            '``Administrator`` on Windows).'),
        value=base.Value(str),
        drivers=('libvirt',),
        example='ubuntu',
    ),
    base.ImageProperty(
        name='os_command_line',
        description=(
            'Kernel command line, for images booted with a separate '
            'kernel and ramdisk.'),
        value=base.Value(str),
        drivers=('libvirt',),
        example='console=ttyS0',
    ),
    base.ImageProperty(
        name='os_require_quiesce',
        description=(
            'Refuse to snapshot the server unless its file systems can be '
            'quiesced through the guest agent.'),
        value=base.Value(bool),
        drivers=('libvirt',),
        requires=('hw_qemu_guest_agent=yes',),
        example='yes',
    ),
    base.ImageProperty(
        name='os_skip_agent_inject_ssh',
        description='Do not inject SSH keys through the guest agent.',
        value=base.Value(bool),
        support=base.XENAPI_ONLY,
        example='true',
    ),
    base.ImageProperty(
        name='os_skip_agent_inject_files_at_boot',
        description='Do not inject files through the guest agent.',
        value=base.Value(bool),
        support=base.XENAPI_ONLY,
        example='true',
    ),
]
