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

"""meta_data.json is kept for [metadata] metadata_cache_expiration seconds
(its random_seed shows whether it was rendered again), and never outlives
a change of its instance.
"""

import time

from nova_mini.db import models
from nova_mini.tests.fixtures import metadata_service

META = '/openstack/latest/meta_data.json'


def _seed(app, instance, path=META):
    return app.get(path, headers=metadata_service.headers(instance.uuid)
                   ).json['random_seed']


def test_document_reused_while_the_instance_is_unchanged(app,
                                                         make_instance):
    instance = make_instance()
    first = _seed(app, instance)
    assert _seed(app, instance) == first
    # Each version is a document of its own.
    assert _seed(app, instance,
                 '/openstack/2013-04-04/meta_data.json') != first


def test_change_is_served_at_once(app, make_instance):
    instance = make_instance(metadata={'role': 'web'})
    headers = metadata_service.headers(instance.uuid)
    first = app.get(META, headers=headers).json
    instance.update_metadata({'role': 'db', 'extra': 'yes'})
    second = app.get(META, headers=headers).json
    assert second['meta'] == {'role': 'db', 'extra': 'yes'}
    assert second['random_seed'] != first['random_seed']
    instance.update_details(name='renamed')
    third = app.get(META, headers=headers).json
    assert (third['name'], third['hostname']) == (
        'renamed', 'renamed.novalocal')
    instance.delete_metadata_item('extra')
    assert app.get(META, headers=headers).json['meta'] == {'role': 'db'}


def test_change_within_one_timestamp_is_served(app, make_instance, db):
    """Where the database keeps whole seconds (MySQL's DATETIME), two
    changes may share an updated_at: the document still follows.
    """
    instance = make_instance(metadata={'role': 'web'})
    headers = metadata_service.headers(instance.uuid)
    stamp = instance.updated_at
    assert app.get(META, headers=headers).json['meta'] == {'role': 'web'}
    instance.update_metadata({'role': 'db'})
    with db.engine.begin() as connection:
        connection.execute(models.Instance.__table__.update().where(
            models.Instance.__table__.c.uuid == instance.uuid).values(
                updated_at=stamp))
    assert app.get(META, headers=headers).json['meta'] == {'role': 'db'}


def test_entries_expire(make_app, make_instance):
    app = make_app(**{'metadata.metadata_cache_expiration': 1})
    instance = make_instance()
    first = _seed(app, instance)
    time.sleep(1.2)     # the clock: the 1 s expiration runs out
    assert _seed(app, instance) != first


def test_zero_disables_the_cache(make_app, make_instance):
    app = make_app(**{'metadata.metadata_cache_expiration': 0})
    instance = make_instance()
    assert _seed(app, instance) != _seed(app, instance)
