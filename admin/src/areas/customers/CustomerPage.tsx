import { useState } from 'react';
import { Alert, Badge, Button, Fieldset, Group, Loader, MultiSelect, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { formatDateTime } from '../../lib/list-ui';
import { AttributeInput, type AttributeValue } from './AttributeInput';
import { customerKeys, LIMITS, useAttributes, useCustomerSite, useGroups, useSections, type Attribute, type Customer } from './data';

/** One customer: account fields, groups, and attributes laid out by attribute sections. */
export function CustomerPage() {
  const { customerId } = useParams({ from: '/signed-in/w/$websiteId/r/customers/$customerId' });
  const api = useApi();
  const { websiteId } = useCustomerSite();
  const customer = useQuery({
    queryKey: customerKeys.one(websiteId, customerId),
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/customers/{customer_id}', { params: { path: { website_id: websiteId, customer_id: customerId } } })),
  });
  usePageTitle(customer.data?.email ?? 'Customer');
  if (customer.isPending) return <Loader role="status" aria-label="Loading the customer" />;
  if (!customer.data) return <ApiErrorAlert error={customer.error} title="The customer could not be loaded" />;
  return <CustomerForm key={customer.data.etag} customer={customer.data} />;
}

// The customer last saved here: the form remounts with the saved etag and still says so.
let justSaved: string | undefined;

function CustomerForm({ customer }: { customer: Customer }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { websiteId, canWrite } = useCustomerSite();
  const groups = useGroups(websiteId);
  const attributes = useAttributes(websiteId);
  const sections = useSections(websiteId);
  const [values, setValuesState] = useState({
    display_name: customer.display_name ?? '',
    is_active: customer.is_active ?? true,
    tags: customer.tags ?? [],
    manual_group_ids: customer.manual_group_ids ?? [],
    attributes: (customer.attributes ?? {}) as Record<string, AttributeValue>,
  });
  const [saved, setSaved] = useState(() => justSaved === customer.id);
  const setValues = (next: typeof values) => {
    setValuesState(next);
    setSaved(false);
    justSaved = undefined;
  };
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/customers/{customer_id}', {
          params: { path: { website_id: websiteId, customer_id: customer.id } },
          body: { ...values, attributes: values.attributes as never, etag: customer.etag },
        }),
      ),
    onSuccess: async (c) => {
      justSaved = c.id;
      setSaved(true);
      qc.setQueryData(customerKeys.one(websiteId, customer.id), c);
      await qc.invalidateQueries({ queryKey: customerKeys.list(websiteId) });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/websites/{website_id}/customers/{customer_id}', { params: { path: { website_id: websiteId, customer_id: customer.id } } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: customerKeys.list(websiteId) });
      await navigate({ to: '/w/$websiteId/r/customers', params: { websiteId } });
    },
  });
  const [confirmDelete, setConfirmDelete] = useState(false);
  const errors = fieldErrorsOf(save.error);
  const readOnly = !canWrite;
  const manualGroups = (groups.data ?? []).filter((g) => g.type !== 'DYNAMIC');
  const groupName = (id: string) => groups.data?.find((g) => g.id === id)?.display_name ?? id;
  const dynamicIds = (customer.group_ids ?? []).filter((id) => !(customer.manual_group_ids ?? []).includes(id));
  const attrs = attributes.data ?? [];
  const setAttribute = (key: string, v: AttributeValue) => setValues({ ...values, attributes: { ...values.attributes, [key]: v } });
  // The default section (no group_id) first, then the sections in their order; an empty section is left out.
  const laidOut: { id: string; title: string; items: Attribute[] }[] = [
    { id: '', title: 'Details', items: attrs.filter((a) => !a.group_id || !(sections.data ?? []).some((s) => s.id === a.group_id)) },
    ...(sections.data ?? []).map((s) => ({ id: s.id, title: s.display_name, items: attrs.filter((a) => a.group_id === s.id) })),
  ].filter((s) => s.items.length > 0);

  return (
    <Stack>
      <AnchorLink to="/w/$websiteId/r/customers" params={{ websiteId }}>
        ← Customers
      </AnchorLink>
      <Group gap="sm">
        <Title order={1} style={{ overflowWrap: 'anywhere', fontSize: 'clamp(1.5rem, 6vw, 2.125rem)' }}>
          {customer.email}
        </Title>
        {!values.is_active && (
          <Badge variant="outline" color="gray.8">
            Inactive
          </Badge>
        )}
      </Group>
      <Text size="sm">
        Joined {formatDateTime(customer.create_time)} · last changed {formatDateTime(customer.update_time)}
      </Text>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
        noValidate
      >
        <Stack>
          <Fieldset legend="Account">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Name" maxLength={LIMITS.name} description={`At most ${LIMITS.name} characters.`} value={values.display_name} onChange={(e) => setValues({ ...values, display_name: e.currentTarget.value })} error={errors.display_name} disabled={readOnly} />
              <TagsInput label="Tags" description={`Each 1 to ${LIMITS.tag} characters; Enter adds one.`} value={values.tags} onChange={(tags) => setValues({ ...values, tags })} error={errors.tags} disabled={readOnly} />
              <Switch label="May sign in" description="Off keeps the account but ends the customer's sessions." checked={values.is_active} onChange={(e) => setValues({ ...values, is_active: e.currentTarget.checked })} disabled={readOnly} />
            </SimpleGrid>
          </Fieldset>
          <Fieldset legend="Groups">
            <Stack gap="xs">
              <MultiSelect
                label="Groups chosen by hand"
                description="Manual groups; dynamic ones follow their rule."
                data={manualGroups.map((g) => ({ value: g.id, label: g.display_name }))}
                value={values.manual_group_ids}
                onChange={(manual_group_ids) => setValues({ ...values, manual_group_ids })}
                error={errors.manual_group_ids}
                disabled={readOnly}
              />
              <Text size="sm">
                By rule:{' '}
                {dynamicIds.length === 0
                  ? 'no dynamic group matches.'
                  : dynamicIds.map((id) => (
                      <Badge key={id} variant="outline" color="blue.9" mr={4}>
                        {groupName(id)}
                      </Badge>
                    ))}
              </Text>
            </Stack>
          </Fieldset>
          {attributes.isPending && <Loader role="status" aria-label="Loading attributes" />}
          <ApiErrorAlert error={attributes.error ?? sections.error} title="Attributes could not be loaded" />
          {attributes.data && attrs.length === 0 && (
            <Alert color="gray" title="No attributes defined">
              Add fields customers carry (a birthday, a membership number…) under Attributes.
            </Alert>
          )}
          {laidOut.map((section) => (
            <Fieldset key={section.id || 'default'} legend={section.title}>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                {section.items.map((a) => (
                  <AttributeInput key={a.id} attribute={a} value={values.attributes[a.key]} onChange={(v) => setAttribute(a.key, v)} error={errors[`attributes.${a.key}`]} readOnly={readOnly} />
                ))}
              </SimpleGrid>
            </Fieldset>
          ))}
          {Object.keys(errors).length === 0 && <ApiErrorAlert error={save.error} title="Not saved" />}
          {Object.keys(errors).length > 0 && (
            <Alert color="red" role="alert" title="Not saved">
              Some fields need attention: see the messages under them.
            </Alert>
          )}
          {saved && (
            <Alert color="green" role="status" title="Saved">
              The customer was updated.
            </Alert>
          )}
          {canWrite && (
            <Group>
              <Button type="submit" loading={save.isPending}>
                Save customer
              </Button>
              {!confirmDelete ? (
                <Button variant="default" color="red" onClick={() => setConfirmDelete(true)}>
                  Delete…
                </Button>
              ) : (
                <>
                  <Text size="sm">Deletes the customer and their sessions; the address becomes free.</Text>
                  <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
                    Delete customer
                  </Button>
                  <Button variant="default" onClick={() => setConfirmDelete(false)}>
                    Keep
                  </Button>
                </>
              )}
            </Group>
          )}
          <ApiErrorAlert error={remove.error} title="Not deleted" />
        </Stack>
      </form>
    </Stack>
  );
}
