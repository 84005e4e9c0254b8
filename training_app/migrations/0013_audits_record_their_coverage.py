"""Audits record what they covered (attacks, scaffolds, each task's bundle digest, the reward scheme they judge
degenerate solutions under), so the training gate vouches for exactly that; older audits keep {} and count as
partial."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('training_app', '0012_turns_count_what_max_turns_bounds'),
    ]

    operations = [
        migrations.AddField(
            model_name='tasksetaudit',
            name='coverage',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name='tasksetaudit',
            name='reward_scheme',
            field=models.CharField(default='dense', max_length=16),
        ),
    ]
