import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type {
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookPage,
  WebhookRequest,
  WebhookUpdateRequest,
} from '@/lib/api-types';

const webhooksKey = ['webhooks'] as const;
const deliveriesKey = (webhookId: string) => [...webhooksKey, webhookId, 'deliveries'] as const;
// While a delivery is pending its attempts go on in the background: look again this often.
const PENDING_POLL_MS = 2_000;

export function getWebhooks(): Promise<WebhookPage> {
  return unwrap(api.GET('/api/v1/webhooks', { params: { query: { page: 1 } } }));
}

export function useWebhooks() {
  return useQuery({ queryKey: webhooksKey, queryFn: getWebhooks });
}

/** The response carries the signing secret: the only time it leaves the server. */
export function createWebhook(body: WebhookRequest): Promise<WebhookCreated> {
  return unwrap(api.POST('/api/v1/webhooks', { body }));
}

export function updateWebhook(id: string, body: WebhookUpdateRequest): Promise<Webhook> {
  return unwrap(api.PATCH('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: id } }, body }));
}

export async function deleteWebhook(id: string): Promise<void> {
  await unwrap(api.DELETE('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: id } } }));
}

export function getWebhookDeliveries(id: string): Promise<WebhookDeliveryPage> {
  return unwrap(api.GET('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: id } } }));
}

export function redeliver(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  return unwrap(
    api.POST('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
      params: { path: { webhook_id: webhookId, delivery_id: deliveryId } },
    }),
  );
}

export function useWebhookDeliveries(webhookId: string) {
  return useQuery({
    queryKey: deliveriesKey(webhookId),
    queryFn: () => getWebhookDeliveries(webhookId),
    refetchInterval: (query) =>
      query.state.data?.results.some((delivery) => delivery.status === 'pending') ? PENDING_POLL_MS : false,
  });
}

function useWebhooksMutation<T, R>(mutationFn: (variables: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => void queryClient.invalidateQueries({ queryKey: webhooksKey }) });
}

export const useCreateWebhook = () => useWebhooksMutation(createWebhook);
export const useUpdateWebhook = () =>
  useWebhooksMutation(({ id, body }: { id: string; body: WebhookUpdateRequest }) => updateWebhook(id, body));
export const useDeleteWebhook = () => useWebhooksMutation(deleteWebhook);
export const useRedeliver = (webhookId: string) =>
  useWebhooksMutation((deliveryId: string) => redeliver(webhookId, deliveryId));
