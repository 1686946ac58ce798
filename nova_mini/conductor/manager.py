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

"""Server side of the nova-mini-conductor RPC API (see rpcapi for the
history): the operations on the nodes of real hardware.

A change (power, deploy, tear down, manage) reserves the node (409
NodeLocked if another operation holds it), takes a worker (503
NoFreeConductorWorker if none is free), records the target state, hands
the hardware work to the worker and returns: the caller answers 202, and
the node shows the outcome when the worker has recorded it and released
the node. As Ironic's, a change first validates what the hardware needs of
the node (its driver_info: power, or management for the boot device and
the indicators), under the reservation: bad or missing information is the
caller's 400 at once (InvalidParameterValue, MissingParameterValue, or for a deploy and a tear
down Ironic's "Failed to validate ..." words), and nothing is written.
Reads (boot device, sensors, validation) ask the hardware at once,
without a reservation; setting the boot device holds one for its
duration. manage (of an enrolled node) and adopt are the exceptions:
their validation is their work, done by the worker, and a failure is
the node's state (enroll, adopt failed) with last_error.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from nova_mini.conductor import drivers
from nova_mini.conductor import operations
from nova_mini.conductor import release
from nova_mini.conductor import rpcapi
from nova_mini.conductor import task_manager
from nova_mini.conductor import workers
from nova_mini import conf
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_provision
from nova_mini import states
from nova_mini import version

LOG = logging.getLogger(__name__)

# The modules whose exceptions cross RPC as themselves (rpc.get_transport).
_PORTABLE = (exception.__name__, exception_baremetal.__name__)

# What a deploy may start from: a claimed node, a failed deploy tried
# again, a deployed node rebuilt.
DEPLOY_FROM = (states.AVAILABLE, states.DEPLOYFAIL, states.ACTIVE)
# manage, provide and adopt: the states they start from.
MANAGE_FROM = (states.ENROLL, states.AVAILABLE, states.CLEANFAIL)
PROVIDE_FROM = (states.MANAGEABLE,)
# adopt: a manageable node, or one whose adoption failed (tried again).
ADOPT_FROM = states.TRANSITIONS[states.ADOPT][0]


def portable(exc):
    """Return ``exc`` as an exception the caller can rebuild: a driver's
    error (its own module) becomes the closest nova_mini exception, with
    its message.
    """
    if not isinstance(exc, exception.NovaMiniException):
        return exc
    for cls in type(exc).__mro__:
        if cls.__module__ in _PORTABLE:
            if cls is type(exc):
                return exc
            return cls(exc.format_message())
    return exc


class ConductorManager(object):
    """The RPC endpoint of one nova-mini-conductor.

    :param host: its host ([DEFAULT] host): the name its reservations
        hold.
    :param conf: the ConfigOpts.
    :param hardware_for: node -> its hardware object
        (drivers.hardware_for).
    :param deploy_images: (context, node) -> (boot ISO URL, config drive
        URL) of a deploy (operations.images_from_instance_info).
    :param clean_up_images: node -> None, withdraws what deploy_images
        published, at tear down and when a deploy fails
        (operations.no_clean_up).
    """

    target = messaging.Target(version=rpcapi.VERSION)

    def __init__(self, host, conf=conf.CONF,
                 hardware_for=drivers.hardware_for,
                 deploy_images=operations.images_from_instance_info,
                 clean_up_images=operations.no_clean_up):
        self.host = host
        self.conf = conf
        self.hardware_for = hardware_for
        self.deploy_images = deploy_images
        self.clean_up_images = clean_up_images
        self.pool = workers.WorkerPool(conf.conductor.workers_pool_size,
                                       host)

    def ping(self, ctxt):
        """Return this conductor's host, versions and work in progress."""
        return {'host': self.host, 'version': version.version_string(),
                'rpc_api_version': rpcapi.VERSION,
                'in_progress': self.pool.in_progress}

    def _hardware(self, node):
        try:
            return self.hardware_for(node)
        except Exception as exc:
            raise portable(exc) from None

    def _validate(self, hardware, node, *interfaces):
        """Validate ``interfaces`` of ``node`` (its hardware's
        validate_interface), the error made portable.
        """
        try:
            for interface in interfaces:
                hardware.validate_interface(node, interface)
        except Exception as exc:
            raise portable(exc) from None

    def _start(self, ctxt, node_id, check, work, values, *args,
               validate=None):
        """Reserve the node, run ``check(node)`` and
        ``validate(node, hardware)``, take a worker, store values and hand
        work(task, hardware, *args) to the worker.
        """
        with task_manager.acquire(ctxt, node_id, self.host) as task:
            ended = check(task.node)
            if ended:
                # Decided without the hardware (a deploy its deploy steps
                # fail): recorded, and the node released.
                task.release(**ended)
                return
            hardware = self._hardware(task.node)
            if validate is not None:
                validate(task.node, hardware)
            slot = self.pool.slot()
            try:
                task.write(**values)
            except Exception:
                slot.cancel()
                raise
            task.hand_over()
            self.pool.run(slot, work, task, hardware, *args)
            LOG.info('Node %s: %s started', task.node.uuid,
                     work.__name__)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def change_node_power_state(self, ctxt, node_id, target, timeout=None):
        """Power the node on, off, reboot it... (``target``: a key of
        states.POWER_TARGETS); timeout: seconds for the BMC to reach
        the state (None: the driver's default). Returns at once; the node
        shows target_power_state until the work ends.

        :raises nova_mini.exception_baremetal.InvalidParameterValue: (or
            MissingParameterValue) the node's power information does not
            validate; nothing is changed.
        """
        def check(node):
            if target not in states.POWER_TARGETS:
                raise exception_baremetal.InvalidStateRequested(
                    action=target, node=node.uuid, state=node.power_state)

        self._start(ctxt, node_id, check, operations.change_power_state,
                    {'target_power_state': states.POWER_TARGETS.get(target),
                     'last_error': None}, target, timeout,
                    validate=lambda node, hardware: self._validate(
                        hardware, node, 'power'))

    @messaging.expected_exceptions(exception.NovaMiniException)
    def do_node_deploy(self, ctxt, node_id, instance_uuid,
                       configdrive=None):
        """Deploy the node claimed by ``instance_uuid``: ``deploying``
        (target active) now, active or deploy failed when
        done. configdrive (a URL or gzip + base64 text) is kept in
        instance_info, as Ironic keeps it.
        """
        def check(node):
            if node.instance_uuid != instance_uuid:
                raise exception_baremetal.NodeClaimLost(
                    node=node.uuid, instance=instance_uuid)
            if node.provision_state not in DEPLOY_FROM:
                raise exception_baremetal.InvalidStateRequested(
                    action=states.DEPLOY, node=node.uuid,
                    state=node.provision_state)
            if node.maintenance:
                raise exception_baremetal.NodeInMaintenance(
                    action=states.DEPLOY, node=node.uuid)
            missing = node_provision.missing_traits(
                node.instance_info, node.traits.get_trait_names())
            if missing:
                raise exception_baremetal.MissingNodeTraits(
                    node=node.uuid, missing=', '.join(missing))

        def validate(node, hardware):
            # Its power information only: the boot ISO may come from the
            # conductor's deploy images (Glance) rather than instance_info,
            # and is checked when the deploy prepares it.
            try:
                self._validate(hardware, node, 'power')
            except exception_baremetal.InvalidParameterValue as exc:
                raise exception_baremetal.InvalidDeployInfo(
                    node=node.uuid, msg=exc.format_message()) from None

        values = self._provision_values(states.DEPLOYING, states.ACTIVE)
        self._start(ctxt, node_id, _with_deploy_values(ctxt, check, values,
                                                       configdrive),
                    operations.deploy, values, self.deploy_images,
                    self.clean_up_images, validate=validate)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def do_node_tear_down(self, ctxt, node_id, instance_uuid=None):
        """Tear the node down: ``deleting`` (target ``available``) now,
        available without its instance (or error) when done.

        :param instance_uuid: (1.2) the instance the node must still hold,
            checked under the reservation: a node freed and claimed
            again since the caller read it is not torn down under its
            new instance (NodeClaimLost).
        """
        def check(node):
            if instance_uuid is not None and \
                    node.instance_uuid != instance_uuid:
                raise exception_baremetal.NodeClaimLostTearDown(
                    node=node.uuid, instance=instance_uuid)
            if node.provision_state not in release.TEAR_DOWN_FROM:
                raise exception_baremetal.InvalidStateRequested(
                    action=states.UNDEPLOY, node=node.uuid,
                    state=node.provision_state)
            if node.protected:
                raise exception_baremetal.NodeProtected(node=node.uuid)

        def validate(node, hardware):
            try:
                self._validate(hardware, node, 'power')
            except exception_baremetal.InvalidParameterValue as exc:
                raise exception_baremetal.InvalidTearDownInfo(
                    msg=exc.format_message()) from None

        self._start(ctxt, node_id, check, operations.tear_down,
                    self._provision_values(states.DELETING,
                                           states.AVAILABLE),
                    self.clean_up_images, validate=validate)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def do_provisioning_action(self, ctxt, node_id, action):
        """``manage``, ``provide`` or (1.3) ``adopt`` the node. An
        enrolled node's manage checks its BMC in a worker (verifying,
        then manageable with the power state read, or enroll with
        last_error); an adoption too (adopting, then active with the
        power state read, or adopt failed with last_error); the other
        moves are recorded at once.
        """
        sources = {states.MANAGE: MANAGE_FROM,
                   states.PROVIDE: PROVIDE_FROM,
                   states.ADOPT: ADOPT_FROM}.get(action)
        if sources is None:
            raise exception.Invalid(
                'nova-mini-conductor does not run the provisioning action '
                '"%s" (manage, provide and adopt only).' % action)

        def check(node):
            if node.provision_state not in sources:
                raise exception_baremetal.InvalidStateRequested(
                    action=action, node=node.uuid,
                    state=node.provision_state)

        with task_manager.acquire(ctxt, node_id, self.host) as task:
            check(task.node)
            work = None
            if action == states.ADOPT:
                work = operations.adopt, (states.ADOPTING, states.ACTIVE)
            elif (action == states.MANAGE and
                    task.node.provision_state == states.ENROLL):
                work = operations.verify, (states.VERIFYING,
                                           states.MANAGEABLE)
            if work is not None:
                function, (state, target) = work
                hardware = self._hardware(task.node)
                slot = self.pool.slot()
                try:
                    task.write(**self._provision_values(state, target))
                except Exception:
                    slot.cancel()
                    raise
                task.hand_over()
                self.pool.run(slot, function, task, hardware)
                return
            values = self._provision_values(
                states.MANAGEABLE if action == states.MANAGE
                else states.AVAILABLE, None)
            if task.node.provision_state == states.CLEANFAIL:
                # As Ironic's: the failed cleaning's error stays.
                del values['last_error']
            task.release(**values)

    @staticmethod
    def _provision_values(state, target):
        return {'provision_state': state, 'target_provision_state': target,
                'provision_updated_at': timeutils.utcnow(),
                'last_error': None}

    @messaging.expected_exceptions(exception.NovaMiniException)
    def set_boot_device(self, ctxt, node_id, device, persistent=False):
        """Set the node's boot device (for every boot if ``persistent``),
        holding its reservation meanwhile.
        """
        with task_manager.acquire(ctxt, node_id, self.host) as task:
            self._validate(self._hardware(task.node), task.node,
                           'management')
            self._call(task.node, 'set_boot_device', device,
                       persistent=persistent)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def get_boot_device(self, ctxt, node_id):
        """Return ``{'boot_device': ..., 'persistent': bool}`` (``None``
        values when the BMC does not say).
        """
        return self._call(task_manager.load(ctxt, node_id),
                          'get_boot_device')

    @messaging.expected_exceptions(exception.NovaMiniException)
    def get_supported_boot_devices(self, ctxt, node_id):
        """Return the boot devices the node's BMC offers (a list)."""
        return list(self._call(task_manager.load(ctxt, node_id),
                               'get_supported_boot_devices'))

    @messaging.expected_exceptions(exception.NovaMiniException)
    def get_sensors_data(self, ctxt, node_id):
        """Return the node's sensors as its BMC reports them (a dict)."""
        return self._call(task_manager.load(ctxt, node_id),
                          'get_sensors_data')

    @messaging.expected_exceptions(exception.NovaMiniException)
    def get_supported_indicators(self, ctxt, node_id, component=None):
        """Return the node's indicators, ``{component: {indicator:
        {'readonly': bool, 'states': [...]}}}`` (only ``component``'s if
        given).
        """
        return self._call(task_manager.load(ctxt, node_id),
                          'get_supported_indicators', component=component)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def get_indicator_state(self, ctxt, node_id, component, indicator):
        """Return the state of the node's ``indicator`` of ``component``
        (ON, OFF, BLINKING or UNKNOWN).
        """
        return self._call(task_manager.load(ctxt, node_id),
                          'get_indicator_state', component, indicator)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def set_indicator_state(self, ctxt, node_id, component, indicator,
                            state):
        """Set the node's ``indicator`` of ``component`` to ``state``,
        holding its reservation meanwhile (as Ironic's).
        """
        with task_manager.acquire(ctxt, node_id, self.host) as task:
            self._validate(self._hardware(task.node), task.node,
                           'management')
            self._call(task.node, 'set_indicator_state', component,
                       indicator, state)

    @messaging.expected_exceptions(exception.NovaMiniException)
    def validate_driver_interfaces(self, ctxt, node_id):
        """Return ``{interface: {'result': bool, 'reason': text}}`` as
        Ironic's validate (reason only when there is one).
        """
        node = task_manager.load(ctxt, node_id)
        try:
            results = self._hardware(node).validate(node)
        except Exception as exc:
            LOG.exception('Validation of node %s failed', node.uuid)
            reason = ('Unexpected exception, traceback saved into log by '
                      'nova-mini-conductor service that is running on '
                      '%(host)s: %(error)s' % {'host': self.host,
                                               'error': exc})
            return {name: {'result': False, 'reason': reason}
                    for name in ('power', 'management', 'boot', 'deploy')}
        answer = {}
        for name, (ok, reason) in sorted(results.items()):
            answer[name] = {'result': bool(ok)}
            if reason is not None:
                answer[name]['reason'] = str(reason)
        return answer

    def _call(self, node, method, *args, **kwargs):
        """Call the hardware of ``node``; its errors made portable."""
        hardware = self._hardware(node)
        try:
            return getattr(hardware, method)(node, *args, **kwargs)
        except Exception as exc:
            raise portable(exc) from None

    def stop(self):
        """Take no more work (requests answer 503)."""
        self.pool.stop()

    def wait(self, timeout):
        """Wait for the work in progress, at most ``timeout`` seconds
        (None: no bound); whether it all ended.
        """
        return self.pool.wait(timeout)


def _with_deploy_values(ctxt, check, values, configdrive):
    """``check``, then what the database deploy records
    (node_provision.conductor_deploy_values: instance_info with the disk
    layout, project and ``configdrive``, the lessee, the deploy steps),
    read under the reservation so that no other write is lost. Deploy
    steps that fail the deploy are returned: the node goes to deploy
    failed without its hardware being asked.
    """
    def checked(node):
        check(node)
        more = node_provision.conductor_deploy_values(
            ctxt, node, configdrive=configdrive)
        if more.get('provision_state') == states.DEPLOYFAIL:
            LOG.info('Deploy of node %s failed: %s', node.uuid,
                     more.get('last_error'))
            return dict(more, target_provision_state=None,
                        provision_updated_at=timeutils.utcnow())
        values.update(more)
        return None

    return checked
