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

"""Key pairs and server tasks under concurrent writers, on every test
backend: one key pair of a name per user (the others get KeyPairExists),
a user's key pairs never pass ``[quota] key_pairs``, and of concurrent
actions on one server exactly one starts its task (the others get
InstanceInvalidState); instance actions are recorded once per action.
"""

import uuid

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task
from nova_mini.objects.compute import keypair as keypair_obj
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

THREADS = 16
KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxY2FFvN6hRn7Pc4TVKtfFfJb2vWh'
       'xy0K6s5FRT4p+I me@host')


@pytest.fixture
def admin(db, conf):
    return nm_context.get_admin_context()


def _keypair(context, name, user_id='alice'):
    keypair = objects.KeyPair(context, name=name, user_id=user_id,
                              fingerprint='aa:bb', public_key=KEY,
                              type=keypair_obj.SSH)
    keypair.create()
    return keypair


def test_one_key_pair_of_a_name(admin, db):
    created, refused = [], []

    def create(index):
        try:
            created.append(_keypair(nm_context.get_admin_context(), 'k').id)
        except exception.KeyPairExists:
            refused.append(index)

    assert threads.race(create, THREADS) == []
    assert len(created) == 1 and len(refused) == THREADS - 1
    assert db.row_counts()['key_pairs'] == 1
    # Another user may have one of that name.
    _keypair(admin, 'k', user_id='bob')


def test_concurrent_creates_never_pass_the_quota(admin, db, conf):
    conf.config(key_pairs=5, group='quota')
    created = []

    def create(index):
        try:
            created.append(_keypair(nm_context.get_admin_context(),
                                    'k%d' % index).name)
        except exception.KeypairLimitExceeded:
            pass

    assert threads.race(create, THREADS) == []
    stored = [k.name for k in keypair_obj.KeyPairList.get_by_user(
        admin, 'alice').objects]
    assert sorted(stored) == sorted(created)
    # As Nova's recheck: never past the quota (under contention every
    # racer may back off), and afterwards the user fills it exactly.
    assert len(created) <= 5
    for index in range(5 - len(created)):
        _keypair(admin, 'after-%d' % index)
    with pytest.raises(exception.KeypairLimitExceeded):
        _keypair(admin, 'one-more')


def test_key_pair_pages_by_name(admin, db):
    for name in ('c', 'a', 'b'):
        _keypair(admin, name)
    page = keypair_obj.KeyPairList.get_by_user(admin, 'alice', limit=2)
    assert [k.name for k in page.objects] == ['a', 'b']
    page = keypair_obj.KeyPairList.get_by_user(admin, 'alice', marker='b')
    assert [k.name for k in page.objects] == ['c']
    with pytest.raises(exception.MarkerNotFound):
        keypair_obj.KeyPairList.get_by_user(admin, 'alice', marker='zz')


def _active_instance(context):
    flavor = builders.make_flavor(context)
    instance = objects.Instance(
        context, uuid=str(uuid.uuid4()), name='srv', project_id='demo',
        user_id='alice', flavor=flavor, image_ref='c0ffee00-0000-4000-8000-000000000001',
        vm_state=instance_obj.ACTIVE, node_uuid=None, fault=None,
        launch_index=0)
    instance.create()
    return instance


def test_one_of_concurrent_actions_runs(admin, db):
    instance = _active_instance(admin)
    started, refused = [], []

    def stop(index):
        context = nm_context.get_admin_context()
        mine = objects.Instance.get_by_uuid(context, instance.uuid)
        # As the API runs a stop: the whole task in one transaction.
        try:
            instance_task.run(mine, instance_action.STOP,
                              instance_task.POWERING_OFF,
                              [instance_task.ACTIVE],
                              lambda: [('compute_stop_instance', None)],
                              vm_state=instance_task.STOPPED,
                              power_state=instance_task.SHUTDOWN)
        except exception.InstanceInvalidState:
            refused.append(index)
            return
        started.append(index)

    assert threads.race(stop, THREADS) == []
    assert len(started) == 1 and len(refused) == THREADS - 1
    shown = objects.Instance.get_by_uuid(admin, instance.uuid)
    assert (shown.vm_state, shown.task_state, shown.power_state) == (
        'stopped', None, instance_task.SHUTDOWN)
    assert shown.status == 'SHUTOFF'
    actions = instance_action.list_actions(admin, instance.uuid)
    assert [a['action'] for a in actions] == ['stop']
    action = instance_action.get_action(admin, instance.uuid,
                                        actions[0]['request_id'])
    assert [e['event'] for e in action['events']] == [
        'compute_stop_instance']
    assert action['events'][0]['result'] == instance_action.SUCCESS
