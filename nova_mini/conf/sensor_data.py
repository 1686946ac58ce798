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

"""Options of the [sensor_data] group: the sensor readings each
nova-mini-conductor sends as notifications (Ironic's group, names and
defaults)."""

from oslo_config import cfg

sensor_data_group = cfg.OptGroup(
    'sensor_data', title='Sensor data options',
    help='The sensor readings of the nodes a nova-mini-conductor drives, '
         'sent periodically as notifications on the message bus.')

sensor_data_opts = [
    cfg.BoolOpt('send_sensor_data', default=False,
                help='Whether each nova-mini-conductor periodically reads '
                     'the sensors of its nodes from their BMCs and sends '
                     'them as notifications (event type '
                     'hardware.<hardware type>.metrics) through the '
                     'notification driver of [oslo_messaging_notifications] '
                     '(nothing is read while that driver sends nothing).'),
    cfg.IntOpt('interval', default=600, min=1,
               help='Seconds between two sensor data passes of a '
                    'nova-mini-conductor.'),
    cfg.IntOpt('workers', default=4, min=1,
               help='How many BMCs a sensor data pass reads at once.'),
    cfg.IntOpt('wait_timeout', default=300, min=1,
               help='Seconds a sensor data pass waits for the BMCs; the '
                    'nodes not read by then are left for the next pass. '
                    'Keep it below interval.'),
    cfg.ListOpt('data_types', default=['ALL'],
                help='The sensor types sent (for redfish: Fan, '
                     'Temperature, Power, Drive, Extra), compared without '
                     'case; ALL sends every type the BMC gives.'),
    cfg.BoolOpt('enable_for_undeployed_nodes', default=False,
                help='Whether the nodes not deployed (provision state other '
                     'than active) have their sensor data sent too.'),
    cfg.BoolOpt('enable_for_nodes', default=True,
                help='Whether the sensor data of nodes is sent at all; '
                     'false sends nothing even with send_sensor_data.'),
]


def register_opts(conf):
    conf.register_group(sensor_data_group)
    conf.register_opts(sensor_data_opts, group=sensor_data_group)


def list_opts():
    return {sensor_data_group: sensor_data_opts}
