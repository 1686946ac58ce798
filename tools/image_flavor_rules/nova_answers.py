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

"""Record Nova's answer to random flavor/image pairs, for the parity test
of nova_mini.api.compute.image_flavor_rules.

Run it with the interpreter of a virtualenv where the real Nova is
installed (it imports nothing from nova_mini)::

    /tmp/novavenv/bin/python tools/image_flavor_rules/nova_answers.py \\
        nova_mini/tests/unit/api/data/image_flavor_rules_nova.json

Each pair (a seeded random choice of the extra specs and image properties
the rules read, with valid values) goes through what Nova's API checks of
a flavor and an image (``API._validate_flavor_image_numa_pci``) and the
secure boot constraint Nova's driver checks; the file stores the pair and
Nova's message, or None when Nova accepts it.
"""

import argparse
import json
import random

FLAVOR = {
    'hw:cpu_policy': ['dedicated', 'shared', 'mixed'],
    'hw:cpu_thread_policy': ['prefer', 'isolate', 'require'],
    'hw:mem_page_size': ['small', 'large', 'any', '2048', '2MB', '1GB'],
    'hw:numa_nodes': ['1', '2'],
    'hw:numa_cpus.0': ['0-3'], 'hw:numa_mem.0': ['4096'],
    'hw:mem_encryption': ['true', 'false'],
    'hw:mem_encryption_model': ['amd-sev', 'amd-sev-es', 'amd-sev-snp',
                                'intel-tdx'],
    'hw:pmu': ['true', 'false'],
    'os:secure_boot': ['required', 'disabled', 'optional'],
    'trait:HW_CPU_HYPERTHREADING': ['required', 'forbidden'],
    'resources:VCPU': ['0', '4'], 'resources:PCPU': ['0', '4', '5'],
    'hw:cpu_dedicated_mask': ['^0'],
    'hw:emulator_threads_policy': ['isolate', 'share'],
    'hw:cpu_realtime': ['true', 'no'],
    'hw:cpu_realtime_mask': ['^0', '0-3', '^0-3'],
}
IMAGE = {
    'hw_cpu_policy': ['dedicated', 'shared', 'mixed'],
    'hw_cpu_thread_policy': ['prefer', 'isolate', 'require'],
    'hw_mem_page_size': ['small', 'large', 'any', '2048', '2MB', '1GB'],
    'hw_numa_nodes': ['1', '2'],
    'hw_numa_cpus.0': ['0-3'], 'hw_numa_mem.0': ['4096'],
    'hw_mem_encryption': ['true', 'false'],
    'hw_mem_encryption_model': ['amd-sev', 'amd-sev-es', 'amd-sev-snp',
                                'intel-tdx'],
    'hw_pmu': ['true', 'false'],
    'os_secure_boot': ['required', 'disabled', 'optional'],
    'hw_firmware_type': ['uefi', 'bios'],
    'hw_machine_type': ['q35', 'pc', 'pc-q35-8.2'],
    'hw_firmware_stateless': ['true', 'false'],
    'hw_video_model': ['none', 'vga'],
    'hw_cpu_realtime_mask': ['^0', '0-1', '^0-3', '0-7'],
    'trait:HW_CPU_HYPERTHREADING': ['required'],
}
IMAGE_ID = '7b3c1d2e-0000-4000-8000-00000000abcd'


def pairs(count, seed):
    rng = random.Random(seed)
    for _n in range(count):
        yield ({k: rng.choice(v) for k, v in sorted(FLAVOR.items())
                if rng.random() < 0.12},
               {k: rng.choice(v) for k, v in sorted(IMAGE.items())
                if rng.random() < 0.12})


def nova_answer(specs, props):
    from nova.compute import api as compute_api
    from nova import objects
    from nova.virt import hardware

    flavor = objects.Flavor(name='bm.small', vcpus=4, memory_mb=4096,
                            root_gb=10, extra_specs=specs)
    image = {'id': IMAGE_ID, 'name': 'cirros', 'properties': props}
    try:
        compute_api.API._validate_flavor_image_numa_pci(image, flavor)
        hardware.get_secure_boot_constraint(
            flavor, objects.ImageMeta.from_dict(image))
    except Exception as exc:
        return exc.format_message()
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('output')
    parser.add_argument('--count', type=int, default=1500)
    parser.add_argument('--seed', type=int, default=28)
    args = parser.parse_args()
    from nova import objects
    import nova.version
    objects.register_all()
    cases = [{'specs': specs, 'props': props,
              'nova': nova_answer(specs, props)}
             for specs, props in pairs(args.count, args.seed)]
    # One case a line.
    with open(args.output, 'w') as f:
        f.write('{"nova_version": %s, "seed": %d, "cases": [\n' % (
            json.dumps(nova.version.version_string()), args.seed))
        f.write(',\n'.join(json.dumps(case, sort_keys=True)
                           for case in cases))
        f.write('\n]}\n')


if __name__ == '__main__':
    main()
