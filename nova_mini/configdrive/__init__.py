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

"""Config drives: what a server reads about itself from a disk labelled
``config-2`` rather than from the metadata service.

* ``iso``: the image (ISO 9660 with Rock Ridge and Joliet, as Nova's
  ``genisoimage -r -J -V config-2`` makes it) and its gzip + base64 form,
  in which Nova's ironic driver hands it to the node.
* ``tree``: the files on it, rendered by the metadata service's code, and
  the builder the scheduler calls at deploy and rebuild.
"""
