import type { Endpoint } from '../../http/registry.ts';
import { submissionEndpoints } from './submissions.ts';
import { fileEndpoints } from './files.ts';
import { settingsEndpoints } from './settings.ts';
import { emailEndpoints } from './email.ts';
import { viewsEndpoints } from './views.ts';

/** Handlers of `forms-submissions` and `forms-views` (route tables in shared/routes/forms.ts). */
export const formsSubmissionsEndpoints: Endpoint[] = [...submissionEndpoints, ...fileEndpoints, ...settingsEndpoints, ...emailEndpoints];
export const formsViewsEndpoints: Endpoint[] = viewsEndpoints;
