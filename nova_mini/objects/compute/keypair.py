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

"""KeyPair: a user's public key (``ssh`` or ``x509``), by name.

A user's key pair names are unique (the database's unique key settles
concurrent creates: the loser gets KeyPairExists); a user holds at most
``[quota] key_pairs`` of them, counted again after the insert so that
concurrent creates never leave the user over the quota. Servers booted
with a key pair keep its name and public key (the Instance's ``key_name``
and ``key_data``), so deleting it later changes nothing about them.
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects.compute import quota
from nova_mini.objects.compute import quota_recheck
from nova_mini.objects import fields

CONF = conf.CONF

SSH = 'ssh'
X509 = 'x509'
TYPES = (SSH, X509)

_KEYPAIRS = models.KeyPair.__table__
_COLUMNS = ('id', 'name', 'user_id', 'fingerprint', 'public_key', 'type',
            'created_at', 'updated_at')
_SELECT = sa.select(*[_KEYPAIRS.c[name] for name in _COLUMNS])


def _count(context, user_id):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_KEYPAIRS).where(
            _KEYPAIRS.c.user_id == user_id)).scalar()


@db_api.context_manager.reader
def _count_committed(context, user_id):
    return _count(context, user_id)


def _check_quota(context, count):
    # The project's own limit where an administrator set one (as Nova's
    # project quota of key pairs), else [quota] key_pairs.
    limit = quota.limit_of(context, context.project_id, 'key_pairs')
    if limit >= 0 and count > limit:
        raise exception.KeypairLimitExceeded()


@db_api.context_manager.writer
def _insert(context, values):
    try:
        result = context.session.execute(_KEYPAIRS.insert().values(**values))
        context.session.flush()
    except db_exc.DBDuplicateEntry:
        raise exception.KeyPairExists(key_name=values['name'])
    return result.inserted_primary_key[0]


@db_api.context_manager.writer
def _delete(context, user_id, name):
    return bool(context.session.execute(_KEYPAIRS.delete().where(
        _KEYPAIRS.c.user_id == user_id,
        _KEYPAIRS.c.name == name)).rowcount)


@db_api.context_manager.writer
def _delete_id(context, keypair_id):
    context.session.execute(_KEYPAIRS.delete().where(
        _KEYPAIRS.c.id == keypair_id))


@db_api.context_manager.reader
def _get(context, user_id, name):
    return context.session.execute(_SELECT.where(
        _KEYPAIRS.c.user_id == user_id, _KEYPAIRS.c.name == name)).first()


@db_api.context_manager.reader
def _get_page(context, user_id, limit, marker):
    query = _SELECT.where(_KEYPAIRS.c.user_id == user_id)
    if marker is not None:
        if _count_named(context, user_id, marker) == 0:
            # Nova's words for a key pair marker that is not there.
            raise exception.MarkerNotFound(
                'Marker %s could not be found.' % marker)
        query = query.where(_KEYPAIRS.c.name > marker)
    query = query.order_by(_KEYPAIRS.c.name)
    if limit is not None:
        query = query.limit(limit)
    return context.session.execute(query).all()


def _count_named(context, user_id, name):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_KEYPAIRS).where(
            _KEYPAIRS.c.user_id == user_id,
            _KEYPAIRS.c.name == name)).scalar()


@base.NovaMiniObjectRegistry.register
class KeyPair(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A user's key pair."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'name': fields.StringField(),
        'user_id': fields.StringField(),
        'fingerprint': fields.StringField(),
        'public_key': fields.StringField(),
        'type': fields.StringField(),
    }

    @staticmethod
    def _from_db_object(context, keypair, row):
        for name in _COLUMNS:
            setattr(keypair, name, getattr(row, name))
        keypair._context = context
        keypair.obj_reset_changes()
        return keypair

    @classmethod
    def get_by_name(cls, context, user_id, name):
        """The key pair ``name`` of ``user_id``.

        :raises nova_mini.exception.KeypairNotFound: there is none.
        """
        row = _get(context, user_id, name)
        if row is None:
            raise exception.KeypairNotFound(name=name, user_id=user_id)
        return cls._from_db_object(context, cls(), row)

    def create(self):
        """Store a new key pair within the user's ``[quota] key_pairs``.

        :raises nova_mini.exception.KeyPairExists: the user has one of
            that name.
        :raises nova_mini.exception.KeypairLimitExceeded: the user has
            the quota already; nothing is left stored.
        """
        values = self.obj_get_changes()
        values.setdefault('type', SSH)
        now = timeutils.utcnow()
        values['created_at'] = now
        _check_quota(self._context,
                     _count_committed(self._context, values['user_id']) + 1)
        keypair_id = _insert(self._context, values)
        quota_recheck.recheck(
            lambda: _check_quota(self._context, _count_committed(
                self._context, values['user_id'])),
            lambda: _delete_id(self._context, keypair_id),
            exception.KeypairLimitExceeded,
            'Key pair %s of user %s' % (values.get('name'),
                                        values['user_id']))
        values.update(id=keypair_id, updated_at=None)
        for name, value in values.items():
            setattr(self, name, value)
        self.obj_reset_changes()

    @staticmethod
    def destroy_by_name(context, user_id, name):
        """Delete the key pair ``name`` of ``user_id``.

        :raises nova_mini.exception.KeypairNotFound: there is none.
        """
        if not _delete(context, user_id, name):
            raise exception.KeypairNotFound(name=name, user_id=user_id)


@base.NovaMiniObjectRegistry.register
class KeyPairList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('KeyPair'),
    }

    @classmethod
    def get_by_user(cls, context, user_id, limit=None, marker=None):
        """A user's key pairs by name, after the one named ``marker``.

        :raises nova_mini.exception.MarkerNotFound: no key pair of that
            name.
        """
        result = cls(context)
        result.objects = [
            KeyPair._from_db_object(context, KeyPair(), row)
            for row in _get_page(context, user_id, limit, marker)]
        result.obj_reset_changes()
        return result
